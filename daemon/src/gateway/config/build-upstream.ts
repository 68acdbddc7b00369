import type { Block, Body } from '../../hcl/index.js';
import type { AttrReader, LoadScope } from './attr-reader.js';
import type { Backends } from './build-backends.js';
import { buildModifiers, invalid, NO_MODIFIERS, single } from './build-common.js';
import { headerRange, where } from './diagnostics.js';
import type { Dyn, JsonObject, JsonValue, ModifierMap, ProxyConfig, RequestConfig, ResponseConfig, WebsocketsConfig } from './model.js';
import { buildSequence } from './sequences.js';
import { parseUrl } from '../../core/parse-url.js';

const LABEL = /^[a-zA-Z0-9_]+$/;
export const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-zA-Z]+$/;

/** The proxy, request and response blocks of an endpoint or error handler. */
export interface Upstreams {
  readonly proxies: ProxyConfig[];
  readonly requests: RequestConfig[];
  readonly response: ResponseConfig | null;
  readonly stages: readonly (readonly string[])[];
}

export function buildUpstreams(body: Body, scope: LoadScope, backends: Backends, within: 'endpoint' | 'error_handler' = 'endpoint'): Upstreams {
  const members = namedMembers(body.blocks, scope);
  const { dependsOn, stages } = buildSequence(members, scope);
  const proxies: ProxyConfig[] = [];
  const requests: RequestConfig[] = [];
  for (const { name, block } of members) {
    const deps = dependsOn.get(name) ?? [];
    if (block.type === 'proxy') proxies.push(buildProxy(block, name, deps, scope, backends));
    else requests.push(buildRequest(block, name, deps, scope, backends));
  }
  const response = buildResponse(single(body.blocks, 'response', scope), scope);
  checkWebsockets(proxies, within, scope, requests.length + (response ? 1 : 0));
  return { proxies, requests, response, stages };
}

/** Proxy and request blocks with their names (the label, or `default`), which must be unique per endpoint. */
function namedMembers(blocks: readonly Block[], scope: LoadScope): { name: string; block: Block }[] {
  const members: { name: string; block: Block }[] = [];
  for (const block of blocks) {
    if (block.type !== 'proxy' && block.type !== 'request') continue;
    const name = block.labels[0] ?? 'default';
    if (!LABEL.test(name)) {
      scope.diags.error('Invalid label', "label contains invalid character(s), allowed are 'a-z', 'A-Z', '0-9' and '_'", block.labelRanges[0] ?? block.typeRange);
      continue;
    }
    const previous = members.find((m) => m.name === name);
    if (previous) {
      scope.diags.error(
        'Duplicate proxy or request name',
        `proxy and request names (either default or explicitly set via label) must be unique: "${name}" is already used at ${where(previous.block.typeRange)}.`,
        headerRange(block),
      );
      continue;
    }
    members.push({ name, block });
  }
  return members;
}

function buildProxy(block: Block, name: string, dependsOn: readonly string[], scope: LoadScope, backends: Backends): ProxyConfig {
  const r = scope.reader(block.body, 'proxy');
  const url = urlOf(r, scope);
  const websockets = buildWebsockets(block, r, scope);
  return {
    name,
    range: headerRange(block),
    backend: backendFor(block, r, url, scope, backends),
    url,
    expectedStatus: statusList(r, scope),
    websockets,
    modifiers: buildModifiers(r),
    dependsOn,
  };
}

/**
 * One upgrade per client connection: as the spec says, only the `default` proxy may take it,
 * with no other proxy, request or response block in the endpoint; an error handler answers too late to.
 */
function checkWebsockets(proxies: readonly ProxyConfig[], within: 'endpoint' | 'error_handler', scope: LoadScope, others: number): void {
  const enabled = proxies.filter((p) => p.websockets !== null);
  if (within === 'error_handler') {
    for (const p of enabled) scope.diags.error('Invalid websockets', 'websockets are served by a proxy of an endpoint, not of an error_handler; remove websockets here.', p.websockets?.range);
    return;
  }
  const [first, ...extra] = enabled;
  for (const p of extra) {
    scope.diags.error('Invalid websockets', `websockets can be enabled in one proxy of an endpoint only: proxy "${first?.name}" already has them at ${first?.websockets ? where(first.websockets.range) : '?'}.`, p.websockets?.range);
  }
  if (!first || extra.length > 0) return;
  if (first.name !== 'default') scope.diags.error('Invalid websockets', `websockets are served by the default (unlabelled) proxy only; proxy "${first.name}" has a label.`, first.websockets?.range);
  else if (proxies.length + others > 1) scope.diags.error('Invalid websockets', 'an endpoint whose proxy serves websockets can have no other proxy, request or response block.', first.websockets?.range);
}

/** `websockets = true` (no timeout, no modifiers) or a `websockets` block; not both (as the peer). */
function buildWebsockets(block: Block, r: AttrReader, scope: LoadScope): WebsocketsConfig | null {
  const flag = r.value<boolean>('websockets');
  const nested = single(block.body.blocks, 'websockets', scope);
  if (nested && r.has('websockets')) {
    scope.diags.error('Conflicting websockets', 'websockets can be set either as an attribute or as a block, not both; remove the attribute.', r.attr('websockets')?.nameRange);
    return null;
  }
  if (nested) {
    const w = scope.reader(nested.body, 'websockets');
    // "0" disables the timeout, as every duration of 0 does.
    return { range: headerRange(nested), timeout: w.value<number>('timeout') || null, modifiers: buildModifiers(w) };
  }
  return flag === true ? { range: r.attr('websockets')?.range ?? headerRange(block), timeout: null, modifiers: NO_MODIFIERS } : null;
}


function buildRequest(block: Block, name: string, dependsOn: readonly string[], scope: LoadScope, backends: Backends): RequestConfig {
  const r = scope.reader(block.body, 'request');
  const url = urlOf(r, scope);
  exclusiveBodies(r, ['body', 'form_body', 'json_body'], 'request can only have one of body, form_body or json_body attributes', scope);
  const method = r.dyn<string>('method') ?? { kind: 'static', value: 'GET' };
  if (method.kind === 'static' && !METHOD_TOKEN.test(method.value)) invalid(r, scope, 'method', `${JSON.stringify(method.value)} is not an HTTP method token`);
  return {
    name,
    range: headerRange(block),
    backend: backendFor(block, r, url, scope, backends),
    url,
    method,
    body: r.dyn<string>('body') ?? null,
    jsonBody: r.dyn<JsonValue>('json_body') ?? null,
    formBody: r.dyn<JsonObject>('form_body') ?? null,
    headers: r.dyn<ModifierMap>('headers') ?? null,
    queryParams: r.dyn<ModifierMap>('query_params') ?? null,
    expectedStatus: statusList(r, scope),
    dependsOn,
  };
}

function buildResponse(block: Block | undefined, scope: LoadScope): ResponseConfig | null {
  if (!block) return null;
  const r = scope.reader(block.body, 'response');
  exclusiveBodies(r, ['body', 'json_body'], 'response can only have one of body or json_body attributes', scope);
  const status = r.dyn<number>('status') ?? { kind: 'static', value: 200 };
  if (status.kind === 'static' && (status.value < 100 || status.value > 599)) invalid(r, scope, 'status', `an HTTP status is between 100 and 599, got ${status.value}`);
  return {
    range: headerRange(block),
    status,
    body: r.dyn<string>('body') ?? null,
    jsonBody: r.dyn<JsonValue>('json_body') ?? null,
    headers: r.dyn<ModifierMap>('headers') ?? null,
  };
}

/** The peer reports the conflict at `body` when set, else at `form_body`. */
function exclusiveBodies(r: AttrReader, names: readonly string[], message: string, scope: LoadScope): void {
  const set = names.filter((n) => r.has(n));
  if (set.length < 2) return;
  const at = r.attr(set[0] as string);
  scope.diags.error('Conflicting body attributes', `${message}; ${set.join(' and ')} are set.`, at?.range);
}

function statusList(r: AttrReader, scope: LoadScope): number[] | null {
  const list = r.value<number[]>('expected_status');
  if (list === undefined) return null;
  const bad = list.find((s) => !Number.isInteger(s) || s < 100 || s > 599);
  if (bad !== undefined) invalid(r, scope, 'expected_status', `an HTTP status is a whole number between 100 and 599, got ${bad}`);
  return list;
}

/** A static url must be an absolute http(s) URL or a path; per-request ones are checked when used. */
function urlOf(r: AttrReader, scope: LoadScope): Dyn<string> | null {
  const url = r.dyn<string>('url');
  if (!url || url.kind === 'expr') return url ?? null;
  if (!url.value.startsWith('/') && !isHttpUrl(url.value)) {
    invalid(r, scope, 'url', `${JSON.stringify(url.value)} is neither an absolute http or https URL nor a path starting with "/"`);
  }
  return url;
}

function isHttpUrl(text: string): boolean {
  const url = parseUrl(text);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
}

/**
 * The backend a proxy/request uses: the `backend` reference, an inline `backend` block,
 * or one made from an absolute `url`. When both url and backend give an origin, they must
 * agree (the spec's rule for url).
 */
function backendFor(block: Block, r: AttrReader, url: Dyn<string> | null, scope: LoadScope, backends: Backends): string {
  const reference = r.value<string>('backend');
  const inline = single(block.body.blocks, 'backend', scope);
  if (reference !== undefined && inline) {
    scope.diags.error(`Multiple definitions of backend are not allowed in ${block.type}.`, 'Set either the backend attribute or a backend block.', headerRange(block));
    return '';
  }
  let name: string;
  if (reference !== undefined) {
    if (!backends.isDefined(reference)) {
      scope.diags.error('Undefined backend', `backend reference '${reference}' is not defined in definitions.`, r.attr('backend')?.expr.range);
      return '';
    }
    name = reference;
  } else if (inline) {
    name = backends.inline(inline);
  } else if (url) {
    const absolute = url.kind === 'static' && isHttpUrl(url.value);
    if (url.kind === 'static' && !absolute) {
      scope.diags.error('Missing backend', `${block.type} has no backend and its url ${JSON.stringify(url.value)} names no origin; set backend, a backend block, or an absolute url.`, r.attr('url')?.expr.range);
      return '';
    }
    return backends.fromUrl(block, absolute ? new URL(url.value).origin : null);
  } else {
    scope.diags.error('Missing backend', `A ${block.type} block needs a backend attribute, a backend block or a url.`, headerRange(block));
    return '';
  }
  const origin = backends.byName[name]?.origin;
  if (url?.kind === 'static' && isHttpUrl(url.value) && origin) {
    const urlHost = new URL(url.value).host;
    const originHost = new URL(origin).host;
    if (urlHost !== originHost) {
      scope.diags.error('Invalid url', `The host of url (${JSON.stringify(urlHost)}) must equal the origin of backend "${name}" (${JSON.stringify(origin)}).`, r.attr('url')?.expr.range);
    }
  }
  return name;
}
