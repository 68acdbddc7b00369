import type { Block, PlainValue } from '../../hcl/index.js';
import type { AttrReader, LoadScope } from './attr-reader.js';
import type { Backends } from './build-backends.js';
import { buildAccess, buildModifiers, elementRange, joinPaths, logFields, unique, type Inherited } from './build-common.js';
import { buildUpstreams, METHOD_TOKEN } from './build-upstream.js';
import { headerRange, where } from './diagnostics.js';
import { CATCHABLE_KINDS } from '../errors/error-types.js';
import type { CustomLogFields, Dyn, EndpointConfig, ErrorHandlerConfig, Permission } from './model.js';

export const STANDARD_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const DEFAULT_BODY_LIMIT = 64 * 1024 * 1024;

/** Error types of the reference's table that error_handler labels may name (`*` for all). */
export const ERROR_TYPES: readonly string[] = ['*', ...CATCHABLE_KINDS];

/** What an api passes to its endpoints besides the common inheritance. */
export interface EndpointDefaults {
  readonly allowedMethods: readonly string[];
  readonly requiredPermission: Dyn<Permission> | null;
}

export function buildEndpoint(block: Block, parent: Inherited, defaults: EndpointDefaults, scope: LoadScope, backends: Backends): EndpointConfig {
  const r = scope.reader(block.body, 'endpoint');
  const pattern = block.labels[0] ?? '';
  checkPattern(block, pattern, scope);
  const { access } = buildAccess(r, parent, scope);
  const customLogFields = logFields(r, parent.customLogFields);
  const upstreams = buildUpstreams(block.body, scope, backends);
  const names = [...upstreams.proxies, ...upstreams.requests].map((u) => u.name);
  // The client response comes from a response block, else from the `default` proxy/request.
  if (!upstreams.response && !names.includes('default')) {
    scope.diags.error("Missing a 'default' proxy or request definition, or a response block", 'Each endpoint must produce a response: add a response block, or an unlabelled proxy or request block.', headerRange(block));
  }
  return {
    pattern,
    path: joinPaths(parent.basePath, pattern),
    range: headerRange(block),
    allowedMethods: allowedMethods(r, scope) ?? defaults.allowedMethods,
    requestBodyLimit: r.value<number>('request_body_limit') ?? DEFAULT_BODY_LIMIT,
    access,
    requiredPermission: requiredPermission(r, scope) ?? defaults.requiredPermission,
    customLogFields,
    modifiers: buildModifiers(r),
    ...upstreams,
    errorHandlers: buildErrorHandlers(block.body.blocks, customLogFields, scope, backends),
  };
}

/** Upstream rules for endpoint labels: a path that starts with `/`, no dot segments, `**` only as the last segment. */
function checkPattern(block: Block, pattern: string, scope: LoadScope): void {
  const range = block.labelRanges[0] ?? block.typeRange;
  const segments = pattern.split('/');
  if (!pattern.startsWith('/')) scope.diags.error('Invalid endpoint pattern', `endpoint path pattern must start with "/", got ${JSON.stringify(pattern)}.`, range);
  else if (segments.some((s) => s === '.' || s === '..')) scope.diags.error('Invalid endpoint pattern', 'endpoint path pattern must not contain "." or ".." segments.', range);
  else if (segments.slice(0, -1).some((s) => s.includes('**')) || segments.some((s) => s.includes('**') && s !== '**')) {
    scope.diags.error('Invalid endpoint pattern', 'endpoint path pattern may use "**" only as its whole last segment ("/**").', range);
  }
}

/** `allowed_methods`: `*` stands for the seven standard methods and combines with others; upper-cased. */
export function allowedMethods(r: AttrReader, scope: LoadScope): string[] | undefined {
  const list = r.value<string[]>('allowed_methods');
  if (list === undefined) return undefined;
  const out: string[] = [];
  list.forEach((m, i) => {
    if (m === '*') out.push(...STANDARD_METHODS);
    else if (METHOD_TOKEN.test(m)) out.push(m.toUpperCase());
    else scope.diags.error('Invalid method', `method contains invalid character(s): ${JSON.stringify(m)} in allowed_methods is not an HTTP method token.`, elementRange(r.attr('allowed_methods')?.expr, i));
  });
  return unique(out);
}

/** `beta_required_permission`: a string, or an object from methods (or `*`) to strings. */
export function requiredPermission(r: AttrReader, scope: LoadScope): Dyn<Permission> | undefined {
  const value = r.dyn<PlainValue>('beta_required_permission');
  if (!value || value.kind === 'expr') return value;
  const range = r.attr('beta_required_permission')?.expr.range;
  const v = value.value;
  if (typeof v === 'string') return { kind: 'static', value: v };
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const byMethod: Record<string, string> = {};
    for (const [method, permission] of Object.entries(v)) {
      if (typeof permission !== 'string') {
        scope.diags.error('Incorrect attribute value type', `Inappropriate value for attribute "beta_required_permission": element ${JSON.stringify(method)}: string required.`, range);
        return undefined;
      }
      if (method !== '*' && !METHOD_TOKEN.test(method)) {
        scope.diags.error('Invalid method', `method contains invalid character(s): ${JSON.stringify(method)} in beta_required_permission is not an HTTP method token.`, range);
        return undefined;
      }
      byMethod[method === '*' ? '*' : method.toUpperCase()] = permission;
    }
    return { kind: 'static', value: byMethod };
  }
  scope.diags.error('Incorrect attribute value type', 'Inappropriate value for attribute "beta_required_permission": string or object of string required.', range);
  return undefined;
}

/** The error_handler blocks among `blocks`; an error type may be handled once per block. */
export function buildErrorHandlers(blocks: readonly Block[], parentLogFields: CustomLogFields, scope: LoadScope, backends: Backends): ErrorHandlerConfig[] {
  const handled = new Map<string, Block>();
  const out: ErrorHandlerConfig[] = [];
  for (const block of blocks) {
    if (block.type !== 'error_handler') continue;
    // `saml2` is what older releases of the peer call the saml error type; configs written for them keep working.
    const kinds = unique(block.labels.flatMap((l) => l.split(' ')).filter((k) => k !== '').map((k) => (k === 'saml2' ? 'saml' : k)));
    if (kinds.length === 0) kinds.push('*');
    for (const kind of kinds) {
      if (!ERROR_TYPES.includes(kind)) {
        scope.diags.error('Invalid error_handler label', `"${kind}" is not an error type; use one of ${ERROR_TYPES.map((t) => JSON.stringify(t)).join(', ')}.`, headerRange(block));
        continue;
      }
      const previous = handled.get(kind);
      if (previous) {
        scope.diags.error('Duplicate error_handler', `The error type "${kind}" is already handled by the error_handler at ${where(previous.typeRange)}.`, headerRange(block));
        continue;
      }
      handled.set(kind, block);
    }
    const r = scope.reader(block.body, 'error_handler');
    const customLogFields = logFields(r, parentLogFields);
    out.push({
      range: headerRange(block),
      kinds,
      customLogFields,
      modifiers: buildModifiers(r),
      ...buildUpstreams(block.body, scope, backends, 'error_handler'),
      errorHandlers: buildErrorHandlers(block.body.blocks, customLogFields, scope, backends),
    });
  }
  return out;
}
