import type { Block } from '../../hcl/index.js';
import type { AttrReader, LoadScope } from './attr-reader.js';
import type { Backends } from './build-backends.js';
import { invalid } from './build-common.js';
import type { OAuth2Client, TokenEndpointAuthMethod } from './model.js';
import { parseUrl } from '../../core/parse-url.js';

const AUTH_METHODS: readonly TokenEndpointAuthMethod[] = ['client_secret_basic', 'client_secret_post'];

/** client_id, client_secret, scope and token_endpoint_auth_method of an OAuth2 client block. */
export function readOAuth2Client(r: AttrReader, scope: LoadScope): OAuth2Client {
  const method = r.value<string>('token_endpoint_auth_method') ?? 'client_secret_basic';
  if (!(AUTH_METHODS as readonly string[]).includes(method)) invalid(r, scope, 'token_endpoint_auth_method', `${JSON.stringify(method)} is not supported; use ${AUTH_METHODS.join(' or ')}`);
  const clientId = r.value<string>('client_id') ?? '';
  if (r.has('client_id') && clientId === '') invalid(r, scope, 'client_id', 'the client id is empty');
  const scopeValue = r.value<string>('scope');
  return {
    clientId,
    clientSecret: r.value<string>('client_secret') ?? '',
    authMethod: (AUTH_METHODS as readonly string[]).includes(method) ? (method as TokenEndpointAuthMethod) : 'client_secret_basic',
    scope: scopeValue === undefined || scopeValue.trim() === '' ? null : scopeValue.trim().split(/\s+/).join(' '),
  };
}

/** An absolute http(s) URL attribute; null (reported) when it is not one. */
export function readHttpUrl(r: AttrReader, scope: LoadScope, name: string): URL | null {
  const text = r.value<string>(name);
  if (text === undefined) return null;
  const url = parseUrl(text);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') {
    invalid(r, scope, name, `${JSON.stringify(text)} is not an absolute http or https URL`);
    return null;
  }
  return url;
}

/**
 * A redirect_uri or sp_acs_url: an absolute http(s) URL, or a path that is resolved per
 * request against the request's origin. Returns the text as written (null when unusable).
 */
export function readCallbackUrl(r: AttrReader, scope: LoadScope, name: string): string | null {
  const text = r.value<string>(name);
  if (text === undefined) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(text)) return readHttpUrl(r, scope, name) === null ? null : text;
  if (!text.startsWith('/')) {
    invalid(r, scope, name, `${JSON.stringify(text)} must be an absolute http(s) URL or a path starting with "/" (resolved against the request's origin)`);
    return null;
  }
  return text;
}

/**
 * The backend a block sends its requests with: the `attr` reference, else the block's
 * nested `backend {}`, else `fallback` (a reference shared by several purposes), else an
 * anonymous backend of `origin` (null: the origin of each request's URL).
 */
export function backendFor(block: Block, r: AttrReader, b: { scope: LoadScope; backends: Backends }, attr: string, fallback: string | null, origin: string | null): string | null {
  const reference = r.value<string>(attr);
  if (reference !== undefined) {
    if (b.backends.isDefined(reference)) return reference;
    b.scope.diags.error('Undefined backend', `The backend ${JSON.stringify(reference)} is not defined in definitions.`, r.attr(attr)?.expr.range);
    return null;
  }
  if (fallback !== null) return fallback;
  const inline = block.body.blocks.find((c) => c.type === 'backend');
  if (inline) return b.backends.inline(inline);
  return b.backends.fromUrl(block, origin);
}

/** The `backend` attribute and a nested `backend {}` block exclude each other. */
export function checkSingleBackend(block: Block, r: AttrReader, scope: LoadScope): boolean {
  const inline = block.body.blocks.find((c) => c.type === 'backend');
  if (inline && r.has('backend')) {
    scope.diags.error('Conflicting attributes', 'Set either the backend attribute or a backend block, not both.', r.attr('backend')?.expr.range);
    return false;
  }
  return true;
}

/**
 * A URL sent through a backend that has an origin must be on that origin's host, as a proxy's
 * `url` must: otherwise the request would go to the URL, not where the backend says. Null
 * when it is, or when the backend has no origin.
 */
export function offOriginProblem(origin: string | null | undefined, backend: string, url: URL): string | null {
  if (!origin || new URL(origin).host === url.host) return null;
  return `its host ${JSON.stringify(url.host)} is not the host of backend "${backend}" (origin ${JSON.stringify(origin)}); make them the same, or use a backend without an origin`;
}

/** Reports `attr` when `url` is not on `backend`'s origin (see offOriginProblem). */
export function checkOnBackendOrigin(r: AttrReader, b: { scope: LoadScope; backends: Backends }, backend: string, url: URL, attr: string): void {
  const problem = offOriginProblem(b.backends.byName[backend]?.origin, backend, url);
  if (problem !== null) invalid(r, b.scope, attr, problem);
}
