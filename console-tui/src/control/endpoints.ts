export interface ControlEndpoints {
  /** What we show the operator, e.g. `http://127.0.0.1:9901`. */
  display: string;
  /** tRPC over HTTP, e.g. `http://127.0.0.1:9901/trpc`. */
  httpUrl: string;
  /** tRPC over WebSocket, e.g. `ws://127.0.0.1:9901/trpc`. */
  wsUrl: string;
}

export class ControlUrlError extends Error {
  readonly code = 'bad_url';
  override readonly name = 'ControlUrlError';
}

/**
 * Accepts `http(s)://host:port`, a bare `host:port` (as in PORTICO_CONTROL_ADDR), and either
 * with or without a trailing `/trpc`.
 */
export function controlEndpoints(input: string): ControlEndpoints {
  const raw = input.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ControlUrlError(`"${input}" is not a control URL; expected something like http://127.0.0.1:9901`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ControlUrlError(`"${input}" uses ${url.protocol.slice(0, -1)}; the control URL must be http:// or https://`);
  }
  const base = url.pathname.replace(/\/+$/, '').replace(/\/trpc$/, '');
  const origin = `${url.protocol}//${url.host}${base}`;
  const wsOrigin = `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}${base}`;
  return { display: origin, httpUrl: `${origin}/trpc`, wsUrl: `${wsOrigin}/trpc` };
}
