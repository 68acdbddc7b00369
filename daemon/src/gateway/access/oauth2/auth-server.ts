import type { BackendConfig, GatewayConfig } from '../../config/model.js';
import type { BackendSet, RequestInfo } from '../../contracts.js';
import { readAll } from '../../endpoint/read-all.js';
import { evalCustomLogFields } from '../../eval/eval-dyn.js';
import { isJsonMediaType, mediaType } from '../../eval/http-variables.js';
import { RequestScope, type BackendResponseFacts } from '../../eval/request-scope.js';
import { applyRequestHeaderModifiers } from '../../modifiers/header-modifiers.js';
import { applyQueryModifiers } from '../../modifiers/params-modifiers.js';
import { PorticoError } from '../../../core/errors.js';

/** No authorization server answers a discovery, key set, token or userinfo request this large. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface AuthServerRequest {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly headers: Record<string, string>;
  /** A form body (token requests). */
  readonly form?: URLSearchParams;
  /** For the backend log line, e.g. `oidc:token:login`. */
  readonly handler: string;
  readonly requestId: string;
}

export interface AuthServerAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body: Buffer;
  /** The decoded body when it is JSON; undefined otherwise. */
  readonly json: unknown;
}

/** A request to an authorization server failed before an answer came (connection, timeout, oversized answer). */
export class AuthServerError extends PorticoError {
  override readonly name = 'AuthServerError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('AUTH_SERVER_UNREACHABLE', message, options);
  }
}

/**
 * Sends a request to an authorization server (discovery, key set, token, userinfo) through
 * a configured backend: its transport, timeouts and TLS, and its request modifiers (so a
 * backend block can change the Accept header the gateway sets), with its log line.
 * `scope` is the client request's, when there is one; background fetches get their own.
 */
export async function callAuthServer(config: GatewayConfig, backends: BackendSet, backendName: string, request: AuthServerRequest, scope: RequestScope | null, signal: AbortSignal): Promise<AuthServerAnswer> {
  const client = backends.get(backendName);
  const backend = client.config;
  const elsewhere = offBackendOrigin(backend, request.url);
  if (elsewhere !== null) throw new AuthServerError(elsewhere);
  const headers: Record<string, string | string[]> = { ...request.headers };
  const url = new URL(request.url.href);
  const body = request.form ? Buffer.from(request.form.toString()) : null;
  if (body) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(body.length);
  }
  const own = scope ?? backgroundScope(config, request);
  const facts = { id: request.requestId, method: request.method, url, headers: { ...headers }, body };
  const backendScope = own.forBackend(facts, null);
  applyRequestHeaderModifiers(headers, backend.modifiers, backendScope);
  applyQueryModifiers(url.searchParams, backend.modifiers, backendScope);
  let answered: BackendResponseFacts | null = null;
  // A field object that fails is not dropped silently: the backend line names it (`custom_error`).
  const customLogFields = backend.customLogFields.length === 0 ? undefined : () => evalCustomLogFields(backend.customLogFields, own.forBackend(facts, answered), (error) => {
    throw error;
  });
  let status: number;
  let responseHeaders: Readonly<Record<string, string | readonly string[]>>;
  let raw: Buffer;
  try {
    const response = await client.send({ method: request.method, url, headers, body, signal, requestId: request.requestId, handler: request.handler, ...(customLogFields ? { customLogFields } : {}) });
    status = response.status;
    responseHeaders = response.headers;
    raw = await readAll(response.body, signal);
  } catch (error) {
    throw new AuthServerError(`${request.method} ${request.url.origin}${request.url.pathname} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (raw.length > MAX_ANSWER_BYTES) throw new AuthServerError(`${request.url.origin}${request.url.pathname} answered more than ${MAX_ANSWER_BYTES} bytes`);
  answered = { status, headers: responseHeaders, body: raw };
  return { status, headers: responseHeaders, body: raw, json: decodeJson(responseHeaders['content-type'], raw) };
}

/**
 * Why `url` may not be sent through `backend`: the backend has an origin on another host (the
 * request would not go where the backend says; the load refuses such URLs written in the
 * configuration, this catches those a provider's configuration names). Null when it may.
 */
export function offBackendOrigin(backend: Pick<BackendConfig, 'name' | 'origin'>, url: URL): string | null {
  if (backend.origin === null || new URL(backend.origin).host === url.host) return null;
  return `${url.origin}${url.pathname} is not on backend "${backend.name}" (origin ${backend.origin}); make the backend's origin that host, or use a backend without an origin`;
}

function decodeJson(contentType: string | readonly string[] | undefined, body: Buffer): unknown {
  const type = mediaType(contentType);
  // Some servers answer JSON as text/plain; anything that parses as JSON is taken.
  if (type !== '' && !isJsonMediaType(type) && type !== 'text/plain') return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The scope of a request the gateway makes on its own (a background discovery): `env` and `gateway`, no client request. */
function backgroundScope(config: GatewayConfig, request: AuthServerRequest): RequestScope {
  const info: RequestInfo = { id: request.requestId, method: request.method, url: request.url, clientIp: '', headers: {}, pathParams: {}, wildcard: null, startedAt: Date.now() };
  return new RequestScope({ config, request: info });
}

/** The body of an error answer in a message: short, on one line. */
export function answerExcerpt(answer: AuthServerAnswer): string {
  const text = answer.body.toString('utf8').replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
