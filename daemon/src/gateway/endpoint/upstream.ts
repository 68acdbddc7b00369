import type { Readable } from 'node:stream';
import type { BackendConfig, Dyn, HandlerBody, ModifierMap, ProxyConfig, RequestConfig } from '../config/model.js';
import type { BackendRequest, BackendResponse, BackendResponseHead, EndpointContext } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { evalCustomLogFields, evalDyn, evalOptional } from '../eval/eval-dyn.js';
import { FORM_MEDIA_TYPE, isFormPost } from '../eval/http-variables.js';
import type { BackendRequestFacts, BackendResponseFacts, EvalScope, RequestScope } from '../eval/request-scope.js';
import { logCustomFieldsError } from '../logs/log-sink.js';
import { applyRequestHeaderModifiers, setHeaders, type HeaderRecord } from '../modifiers/header-modifiers.js';
import { applyFormModifiers, applyQueryModifiers, hasFormModifiers, setParams } from '../modifiers/params-modifiers.js';
import type { BodyPlan } from './body-plan.js';
import { backendRequest } from './backend-request.js';
import { hasClientBody } from './client-body.js';
import { copyHeaders, endToEndHeaders } from './hop-headers.js';
import { discardBody, readAll } from './read-all.js';
import type { ResponseContext } from './response-contexts.js';
import { upstreamUrl } from './upstream-url.js';
import { websocketsModifiers } from '../websockets/upgrade-request.js';

/** What one proxy/request block needs from the request it serves. */
export interface UpstreamEnv {
  readonly ctx: EndpointContext;
  readonly scope: RequestScope;
  readonly plan: BodyPlan;
  /** The endpoint or error handler the block belongs to (its request modifiers apply to proxies). */
  readonly body: HandlerBody;
  /** The block whose response streams to the client, or null when a response block answers. */
  readonly clientBlock: string | null;
  readonly signal: AbortSignal;
}

/** A block's backend response: buffered, or streaming when it becomes the client response untouched. */
export interface UpstreamResult {
  readonly name: string;
  readonly status: number;
  readonly headers: HeaderRecord;
  readonly body: Readable | Buffer;
  /** Response modifiers still to apply when this is the client response (proxy, then backend). */
  readonly responseContexts: readonly ResponseContext[];
}

export type UpstreamBlock = { readonly kind: 'proxy'; readonly config: ProxyConfig } | { readonly kind: 'request'; readonly config: RequestConfig };

/** Builds, sends and checks one proxy or request block; records `backend_requests/_responses.<name>`. */
export async function runUpstream(block: UpstreamBlock, env: UpstreamEnv): Promise<UpstreamResult> {
  const { ctx, scope } = env;
  const name = block.config.name;
  const backend = ctx.config.backends[block.config.backend];
  if (!backend) throw new GatewayError('configuration', `${block.kind} "${name}": backend "${block.config.backend}" is not defined`);
  const outgoing = block.kind === 'proxy' ? proxyRequest(block.config, backend, env) : requestBlockRequest(block.config, backend, env);
  const facts: BackendRequestFacts = { id: ctx.request.id, method: outgoing.method, url: outgoing.url, headers: outgoing.headers, body: Buffer.isBuffer(outgoing.body) ? outgoing.body : null };
  // The backend block's expressions see the request as it was before the block changed it (a copy, made only when it has some).
  const backendScope = backendHasExpressions(backend) ? scope.forBackend({ ...facts, headers: { ...outgoing.headers }, url: new URL(outgoing.url.href) }, null) : scope;
  finishBackendRequest(outgoing, backend, backendScope, ctx);
  scope.recordBackendRequest(name, facts);

  let resFacts: BackendResponseFacts | null = null;
  // Read when the backend log line is written, which may be before send() resolves for a small
  // body: the response head comes with the call, the body only once this block has read it.
  const customLogFields = (head: BackendResponseHead | null): Record<string, unknown> | null =>
    backend.customLogFields.length === 0 ? null : evalCustomLogFields(backend.customLogFields, scope.forBackend(facts, resFacts ?? (head && { status: head.status, headers: head.headers, body: null })), (error) => logCustomFieldsError(ctx.logSink, ctx.request.id, error, `backend "${backend.name}"`));
  const response = await ctx.backends.get(backend.name).send(backendRequest(ctx, outgoing, name, customLogFields));
  const expected = block.config.expectedStatus;
  if (expected !== null && !expected.includes(response.status)) {
    // Error handlers may read what came back (`backend_responses.<name>.status`, its body when an expression reads it).
    const wanted = env.plan.allResponseBodies || env.plan.responseBodies.has(name);
    const body = wanted ? (response.buffered ?? (await readAll(response.body, env.signal))) : null;
    if (!wanted && response.buffered === undefined) discardBody(response.body);
    scope.recordBackendResponse(name, { status: response.status, headers: response.headers, body });
    throw unexpectedStatus(`${block.kind} "${name}"`, backend.name, response.status, expected);
  }
  const streams = env.clientBlock === name && !env.plan.allResponseBodies && !env.plan.responseBodies.has(name) && !env.plan.backendResponseBodies.has(backend.name);
  // A small body was read whole already: given as it is, streamed or not.
  const body = response.buffered ?? (streams ? response.body : await readAll(response.body, env.signal));
  // The backend's headers are end-to-end already (the exchange dropped the hop-by-hop ones). The
  // response modifiers change a copy; the variables (read only) show the backend's answer itself.
  // A body on its way to the client untouched is not a variable (as when it streams).
  const headers = copyHeaders(response.headers as HeaderRecord);
  resFacts = { status: response.status, headers: response.headers, body: !streams && Buffer.isBuffer(body) ? body : null };
  const contexts: ResponseContext[] = [
    ...(block.kind === 'proxy' ? [{ modifiers: block.config.modifiers, scope, status: false }] : []),
    // websockets: the block's response modifiers apply to the backend's answer to the upgrade.
    ...(block.kind === 'proxy' ? websocketsModifiers(block.config, ctx.request.headers).map((modifiers) => ({ modifiers, scope, status: false })) : []),
    { modifiers: backend.modifiers, scope: scope.forBackend(facts, resFacts), status: true },
  ];
  scope.recordBackendResponse(name, resFacts);
  return { name, status: response.status, headers, body, responseContexts: contexts };
}

/** The error of a block whose backend answered a status its `expected_status` does not list. */
export function unexpectedStatus(block: string, backend: string, status: number, expected: readonly number[]): GatewayError {
  return new GatewayError('unexpected_status', `${block}: backend "${backend}" answered ${status}, expected ${expected.join(', ')}`, { source: backend });
}

type Outgoing = { method: string; url: URL; headers: HeaderRecord; body: BackendRequest['body'] };

/** Client headers a proxy does not pass on by itself: Host is the backend's, Authorization and Cookie are the client's credentials for the gateway. */
export const PROXY_DROPPED_HEADERS: readonly string[] = ['host', 'authorization', 'cookie'];

function proxyRequest(proxy: ProxyConfig, backend: BackendConfig, env: UpstreamEnv): Outgoing {
  const { ctx, scope } = env;
  const request = ctx.request;
  // As the peer: the client's credentials stay at the gateway unless a modifier forwards them on purpose.
  const headers = endToEndHeaders(request.headers, PROXY_DROPPED_HEADERS);
  // As the peer (Go's reverse proxy): the client address is appended to X-Forwarded-For.
  const prior = headers['x-forwarded-for'];
  headers['x-forwarded-for'] = prior === undefined ? request.clientIp : `${[prior].flat().join(', ')}, ${request.clientIp}`;
  const url = upstreamUrl({ backend, url: evalOptional(proxy.url, scope, { name: 'url', type: 'string' }), client: request.url, wildcard: request.wildcard, scope, block: `proxy "${proxy.name}"` });
  for (const m of [env.body.modifiers, proxy.modifiers, ...websocketsModifiers(proxy, request.headers)]) {
    applyRequestHeaderModifiers(headers, m, scope);
    applyQueryModifiers(url.searchParams, m, scope);
  }
  let body: BackendRequest['body'] = null;
  const buffered = scope.bufferedBody();
  if (buffered !== null) {
    body = buffered;
    const form = [env.body.modifiers, proxy.modifiers, backend.modifiers].filter(hasFormModifiers);
    if (form.length > 0 && isFormPost(request.method, request.headers['content-type'])) {
      const params = new URLSearchParams(buffered.toString('utf8'));
      // The backend's form modifiers run here with the others so the body is encoded once; they see `request`, not `backend_request`.
      for (const m of form) applyFormModifiers(params, m, scope);
      body = Buffer.from(params.toString());
    }
  } else if (hasClientBody(request.headers)) {
    body = scope.bodyStream() ?? ctx.incoming;
  }
  setBodyHeaders(headers, body);
  return { method: request.method, url, headers, body };
}

function requestBlockRequest(r: RequestConfig, backend: BackendConfig, env: UpstreamEnv): Outgoing {
  const { ctx, scope } = env;
  const method = (evalDyn(r.method, scope, { name: 'method', type: 'string' }) ?? 'GET').toUpperCase();
  const url = upstreamUrl({ backend, url: evalOptional(r.url, scope, { name: 'url', type: 'string' }), client: null, wildcard: ctx.request.wildcard, scope, block: `request "${r.name}"` });
  const query = evalOptional(r.queryParams, scope, { name: 'query_params', type: 'modifierMap' });
  if (query) setParams(url.searchParams, query);
  const headers: HeaderRecord = {};
  let body: Buffer | null = null;
  let contentType: string | null = null;
  const text = evalOptional(r.body, scope, { name: 'body', type: 'string' });
  const json = r.jsonBody === null ? undefined : evalDyn(r.jsonBody, scope);
  const form = evalOptional(r.formBody, scope, { name: 'form_body', type: 'modifierMap' }) as ModifierMap | null;
  if (text !== null) {
    body = Buffer.from(text);
    contentType = 'text/plain';
  } else if (json !== undefined) {
    body = Buffer.from(JSON.stringify(json));
    contentType = 'application/json';
  } else if (form !== null) {
    const params = new URLSearchParams();
    setParams(params, form);
    if (hasFormModifiers(backend.modifiers) && method === 'POST') applyFormModifiers(params, backend.modifiers, scope);
    body = Buffer.from(params.toString());
    contentType = FORM_MEDIA_TYPE;
  }
  if (contentType !== null) headers['content-type'] = contentType;
  const own = evalOptional(r.headers, scope, { name: 'headers', type: 'modifierMap' });
  if (own) setHeaders(headers, own);
  setBodyHeaders(headers, body);
  return { method, url, headers, body };
}

/** The backend block's part, evaluated with `backend_request`: modifiers, Host, basic auth, request id. */
function finishBackendRequest(outgoing: Outgoing, backend: BackendConfig, scope: EvalScope, ctx: EndpointContext): void {
  applyRequestHeaderModifiers(outgoing.headers, backend.modifiers, scope);
  applyQueryModifiers(outgoing.url.searchParams, backend.modifiers, scope);
  const hostname = evalOptional(backend.hostname, scope, { name: 'hostname', type: 'string' });
  if (hostname) outgoing.headers['host'] = hostname;
  const basicAuth = evalOptional(backend.basicAuth, scope, { name: 'basic_auth', type: 'string' });
  if (basicAuth) outgoing.headers['authorization'] = `Basic ${Buffer.from(basicAuth).toString('base64')}`;
  const idHeader = ctx.config.settings.requestIdBackendHeader;
  if (idHeader !== '') outgoing.headers[idHeader.toLowerCase()] = ctx.request.id;
}

const expressive = new WeakMap<BackendConfig, boolean>();

/** Whether the backend's modifiers, hostname or basic_auth are expressions (evaluated with `backend_request`). */
function backendHasExpressions(backend: BackendConfig): boolean {
  let has = expressive.get(backend);
  if (has === undefined) {
    const dyns = [backend.hostname, backend.basicAuth, ...Object.values(backend.modifiers)] as (Dyn<unknown> | null)[];
    has = dyns.some((dyn) => dyn?.kind === 'expr');
    expressive.set(backend, has);
  }
  return has;
}

/** Content-Length for a backend request's body: dropped without one, set for one in memory, kept for a stream. */
export function setBodyHeaders(headers: HeaderRecord, body: BackendRequest['body']): void {
  if (body === null) {
    // Only when there is one: `delete` goes through the runtime even for a name the object lacks (a GET's).
    if ('content-length' in headers) delete headers['content-length'];
  } else if (Buffer.isBuffer(body)) headers['content-length'] = String(body.length);
}

export type { BackendResponse };
