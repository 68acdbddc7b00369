/**
 * Method overrides: many backend frameworks let a request name another method than the one it
 * was sent with (Rack and Express's method-override read `X-HTTP-Method-Override`, ASP.NET Core
 * and Google's APIs too, Symfony and Laravel a `_method` parameter, others `X-HTTP-Method` or
 * `X-Method-Override`). A POST allowed for writers would become a DELETE behind the gateway, so
 * `allowed_methods` and a per-method `beta_required_permission` check each method a request
 * names this way as well as its own (docs/gateway.md, "Method overrides").
 */
import type { RequestInfo } from '../contracts.js';
import type { Dyn, Permission } from '../config/model.js';
import { METHOD_TOKEN } from '../config/build-upstream.js';
import { GatewayError } from '../errors/error-types.js';
import { isFormPost } from '../eval/http-variables.js';

/** The override headers (lower-case), and the query parameter. */
export const METHOD_OVERRIDE_HEADERS: readonly string[] = ['x-http-method-override', 'x-http-method', 'x-method-override'];
export const METHOD_OVERRIDE_PARAM = '_method';

const NONE: readonly MethodOverride[] = [];

/** A method a request names besides its own, and where it named it (for the error detail). */
export interface MethodOverride {
  readonly method: string;
  readonly via: string;
}

/**
 * The methods, other than its own, a request names by override (upper-cased, as frameworks
 * compare them). A value that is not one method token (empty, or a list) is refused with a 400:
 * what a backend would make of it is not knowable here.
 */
export function methodOverrides(request: RequestInfo): readonly MethodOverride[] {
  const headers = request.headers;
  let out: MethodOverride[] | null = null;
  for (const name of METHOD_OVERRIDE_HEADERS) {
    const value = headers[name];
    if (value === undefined) continue;
    for (const v of typeof value === 'string' ? [value] : value) out = add(out, request.method, v.trim(), `the ${name} header`);
  }
  const search = request.url.search;
  // Most queries name no `_method`; one spelled with escapes (`%5Fmethod`) is found by decoding.
  if (search.length > 1 && (search.includes('method') || search.includes('%'))) out = addParams(out, request.method, request.url.searchParams, 'query parameter');
  return out ?? NONE;
}

/**
 * The `_method` fields of a buffered urlencoded POST body (Rails' Rack::MethodOverride, Laravel
 * and Symfony read one on POST), as `methodOverrides` gives those of the head. Read only on
 * endpoints where a method could be refused (`formOverrideMatters`).
 */
export function formMethodOverrides(request: RequestInfo, body: Buffer | null): readonly MethodOverride[] {
  if (body === null || !isFormPost(request.method, request.headers['content-type'])) return NONE;
  const text = body.toString('utf8');
  // Most forms name no `_method`; one spelled with escapes (`%5Fmethod`) is found by decoding.
  if (!text.includes('method') && !text.includes('%')) return NONE;
  return addParams(null, request.method, new URLSearchParams(text), 'form field') ?? NONE;
}

/**
 * Whether a parameter or form field name is `_method` to a backend: as sent, or as PHP registers
 * it for Laravel and Symfony (leading spaces dropped, then spaces and dots made underscores, so
 * `.method` and ` .method` are `_method` there too).
 */
export function namesMethodParam(name: string): boolean {
  if (name === METHOD_OVERRIDE_PARAM) return true;
  return name.endsWith('method') && name.replace(/^ +/, '').replace(/[ .]/g, '_') === METHOD_OVERRIDE_PARAM;
}

/**
 * The method `value` names by override (upper-cased, as frameworks compare them), null when it is
 * the request's own; a value that is not one method token (empty, or a list) is refused with a
 * 400, since what a backend would make of it is not knowable here.
 */
export function namedMethod(own: string, value: string, via: string): MethodOverride | null {
  if (!METHOD_TOKEN.test(value)) {
    throw new GatewayError('client_request', `${via} names no single HTTP method (${JSON.stringify(value.slice(0, 40))}); send one method token, or leave it out`);
  }
  const method = value.toUpperCase();
  return method === own ? null : { method, via };
}

/** Where a method came from, for the error: `the _method form field`, or a PHP spelling named as sent. */
export function paramSource(name: string, kind: 'query parameter' | 'form field'): string {
  return name === METHOD_OVERRIDE_PARAM ? `the ${METHOD_OVERRIDE_PARAM} ${kind}` : `the ${JSON.stringify(name)} ${kind} (PHP reads it as ${METHOD_OVERRIDE_PARAM})`;
}

function addParams(out: MethodOverride[] | null, own: string, params: URLSearchParams, kind: 'query parameter' | 'form field'): MethodOverride[] | null {
  for (const [name, value] of params) if (namesMethodParam(name)) out = add(out, own, value.trim(), paramSource(name, kind));
  return out;
}

/** The seven methods `*` stands for in `allowed_methods` and in a per-method permission. */
export const STANDARD_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * True when a `_method` in a POST's form body could name a method this endpoint refuses: it
 * takes POST, and either leaves out a standard method or has a `beta_required_permission`
 * that may differ by method (an object, or an expression). Elsewhere a form POST streams to
 * the backend unread.
 */
export function formOverrideMatters(allowedMethods: readonly string[], permission: Dyn<Permission> | null): boolean {
  if (!allowedMethods.includes('POST')) return false;
  const byMethod = permission !== null && !(permission.kind === 'static' && typeof permission.value === 'string');
  return byMethod || STANDARD_METHODS.some((m) => !allowedMethods.includes(m));
}

/** 405 for a method the endpoint does not take, with its `Allow` header. */
export function methodNotAllowed(method: string, allowed: readonly string[]): GatewayError {
  return new GatewayError('method_not_allowed', `method ${method} is not allowed here (allowed: ${allowed.join(', ')})`, { headers: { Allow: allowed.join(', ') } });
}

/** Each method named by override must be one the endpoint takes (`allowed_methods`), as the request's own. */
export function checkOverridesAllowed(overrides: readonly MethodOverride[], allowed: readonly string[]): void {
  for (const o of overrides) {
    if (!allowed.includes(o.method)) throw methodNotAllowed(`${o.method} (named by ${o.via})`, allowed);
  }
}

/** The denial type of a refusal caused by an override (Events: "access denied: method_override by the method check"). */
export const METHOD_OVERRIDE_DENIAL = 'method_override';

/** Runs a check of override-named methods and gives its result; a refusal it throws is recorded on the access line as a denial, for the consoles. */
export function refusedAsOverride<T>(log: { denial?: { readonly type: string; readonly label: string | null } }, check: () => T): T {
  try {
    return check();
  } catch (error) {
    log.denial = { type: METHOD_OVERRIDE_DENIAL, label: null };
    throw error;
  }
}

function add(out: MethodOverride[] | null, own: string, value: string, via: string): MethodOverride[] | null {
  const named = namedMethod(own, value, via);
  if (named === null || out?.some((o) => o.method === named.method)) return out;
  return [...(out ?? []), named];
}
