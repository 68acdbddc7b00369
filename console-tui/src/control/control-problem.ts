/** Why talking to the control API failed, in terms the operator can act on. */
export type ControlProblemCode = 'unauthorized' | 'unreachable' | 'timeout' | 'failed';

export interface ControlProblem {
  code: ControlProblemCode;
  /** Short reason, e.g. `connection refused` or `HTTP 401`. */
  reason: string;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

/** Turns anything a tRPC call or a socket threw into a ControlProblem, looking through `cause`s. */
export function toControlProblem(error: unknown): ControlProblem {
  const chain = causeChain(error);
  for (const e of chain) {
    const status = httpStatusOf(e);
    if (status === 401 || trpcCodeOf(e) === 'UNAUTHORIZED') return { code: 'unauthorized', reason: status ? `HTTP ${status}` : 'UNAUTHORIZED' };
  }
  for (const e of chain) {
    const code = stringProp(e, 'code');
    if (code && NETWORK_CODES[code]) return { code: code === 'ETIMEDOUT' ? 'timeout' : 'unreachable', reason: NETWORK_CODES[code] };
    const name = stringProp(e, 'name');
    if (name === 'TimeoutError' || name === 'AbortError') return { code: 'timeout', reason: 'no answer in time' };
  }
  for (const e of chain) {
    const status = httpStatusOf(e);
    if (status) return { code: 'failed', reason: `HTTP ${status}${messageOf(error) ? `: ${messageOf(error)}` : ''}` };
  }
  // The innermost message is the specific one ("bad port"), the outer ones generic ("fetch failed").
  const innermost = chain.map(messageOf).filter(Boolean).at(-1);
  return { code: 'failed', reason: innermost || 'unknown error' };
}

/**
 * True when the daemon answered that the area does not run in this process (HTTP 412,
 * PRECONDITION_FAILED): a lasting answer, unlike a timeout or a dropped link.
 */
export function daemonRefused(error: unknown): boolean {
  return causeChain(error).some((e) => httpStatusOf(e) === 412 || trpcCodeOf(e) === 'PRECONDITION_FAILED');
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 8 && !chain.includes(current)) {
    chain.push(current);
    // Errors nest their reason in `cause`; a WebSocket ErrorEvent carries it in `error`.
    const next = typeof current === 'object' ? ((current as { cause?: unknown }).cause ?? (current as { error?: unknown }).error) : undefined;
    current = next;
  }
  return chain;
}

function httpStatusOf(e: unknown): number | undefined {
  const data = objectProp(e, 'data');
  const fromData = data && typeof data['httpStatus'] === 'number' ? data['httpStatus'] : undefined;
  const response = objectProp(objectProp(e, 'meta') ?? {}, 'response');
  const fromResponse = response && typeof response['status'] === 'number' ? response['status'] : undefined;
  const direct = typeof e === 'object' && e !== null && typeof (e as { status?: unknown }).status === 'number' ? (e as { status: number }).status : undefined;
  return fromResponse ?? fromData ?? direct;
}

function trpcCodeOf(e: unknown): string | undefined {
  const data = objectProp(e, 'data');
  return data && typeof data['code'] === 'string' ? data['code'] : undefined;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : typeof e === 'string' ? e : '';
}

function stringProp(e: unknown, key: string): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const value = (e as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

function objectProp(e: unknown, key: string): Record<string, unknown> | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const value = (e as Record<string, unknown>)[key];
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}
