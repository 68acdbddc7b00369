import { posix } from 'node:path';
import type { Block, Expression, Range } from '../../hcl/index.js';
import type { AttrReader, LoadScope } from './attr-reader.js';
import { headerRange, where } from './diagnostics.js';
import type { AccessControl, CorsConfig, CustomLogFields, Dyn, JsonObject, Modifiers } from './model.js';

/** What a block passes down to the blocks nested in it. */
export interface Inherited {
  readonly basePath: string;
  readonly accessControl: readonly string[];
  readonly disabled: readonly string[];
  readonly customLogFields: CustomLogFields;
}

export const ROOT_INHERITED: Inherited = { basePath: '/', accessControl: [], disabled: [], customLogFields: [] };

/** A block without modifiers (files/spa guards, a `websockets = true`, a backend's defaults). */
export const NO_MODIFIERS: Modifiers = Object.freeze({
  removeRequestHeaders: null,
  setRequestHeaders: null,
  addRequestHeaders: null,
  removeResponseHeaders: null,
  setResponseHeaders: null,
  addResponseHeaders: null,
  removeQueryParams: null,
  setQueryParams: null,
  addQueryParams: null,
  removeFormParams: null,
  setFormParams: null,
  addFormParams: null,
  setResponseStatus: null,
});

export function buildModifiers(r: AttrReader): Modifiers {
  const m = <T>(name: string): Dyn<T> | null => r.dyn<T>(name) ?? null;
  return {
    removeRequestHeaders: m('remove_request_headers'),
    setRequestHeaders: m('set_request_headers'),
    addRequestHeaders: m('add_request_headers'),
    removeResponseHeaders: m('remove_response_headers'),
    setResponseHeaders: m('set_response_headers'),
    addResponseHeaders: m('add_response_headers'),
    removeQueryParams: m('remove_query_params'),
    setQueryParams: m('set_query_params'),
    addQueryParams: m('add_query_params'),
    removeFormParams: m('remove_form_params'),
    setFormParams: m('set_form_params'),
    addFormParams: m('add_form_params'),
    setResponseStatus: m('set_response_status'),
  };
}

/** This block's `custom_log_fields` after its parents'. */
export function logFields(r: AttrReader, parent: CustomLogFields): CustomLogFields {
  const own = r.dyn<JsonObject>('custom_log_fields');
  return own ? [...parent, own] : parent;
}

/**
 * `access_control` / `disable_access_control` with inheritance. Every label must name an
 * access control block of `definitions`: an unknown label fails the load rather than serve
 * the block unprotected.
 */
export function buildAccess(r: AttrReader, parent: Inherited, scope: LoadScope): { access: AccessControl; inherited: Pick<Inherited, 'accessControl' | 'disabled'> } {
  const own = r.value<string[]>('access_control') ?? [];
  const disabled = r.value<string[]>('disable_access_control') ?? [];
  for (const name of ['access_control', 'disable_access_control']) {
    const attr = r.attr(name);
    const labels = (name === 'access_control' ? own : disabled);
    labels.forEach((label, i) => {
      if (scope.accessControlLabels.has(label)) return;
      const known = [...scope.accessControlLabels].map((l) => JSON.stringify(l)).join(', ');
      scope.diags.error('Undefined access control', `The access control ${JSON.stringify(label)} is not defined in definitions${known === '' ? ' (there are none: add a basic_auth or jwt block there)' : `; defined: ${known}`}.`, elementRange(attr?.expr, i));
    });
  }
  const accessControl = unique([...parent.accessControl, ...own]);
  const allDisabled = unique([...parent.disabled, ...disabled]);
  return {
    access: { accessControl: own, disableAccessControl: disabled, effective: accessControl.filter((l) => !allDisabled.includes(l)) },
    inherited: { accessControl, disabled: allDisabled },
  };
}

/** The range of element `i` when the expression is a tuple literal, else of the whole expression. */
export function elementRange(expr: Expression | undefined, i: number): Range | undefined {
  if (!expr) return undefined;
  if (expr.kind === 'tuple') return expr.exprs[i]?.range ?? expr.range;
  return expr.range;
}

export function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

/**
 * Joins base paths and a pattern as the peer does: `.`-free segments joined with single
 * slashes, always starting with `/`; a trailing slash of the last part is kept.
 */
export function joinPaths(base: string, path: string): string {
  const joined = posix.join('/', base, path);
  return path.endsWith('/') && !joined.endsWith('/') ? `${joined}/` : joined;
}

/** A base_path: must not contain `.` or `..` segments (they would escape the prefix). */
export function basePathOf(r: AttrReader, parent: string, scope: LoadScope): string {
  const own = r.value<string>('base_path');
  if (own === undefined) return parent;
  if (own.split('/').some((s) => s === '.' || s === '..')) {
    scope.diags.error('Invalid base_path', `base_path must not contain "." or ".." segments, got ${JSON.stringify(own)}.`, r.attr('base_path')?.expr.range);
  }
  return joinPaths(parent, own);
}

/** Blocks of one type that may appear at most once (upstream's "Duplicate ... block"). */
export function single(blocks: readonly Block[], type: string, scope: LoadScope): Block | undefined {
  const found = blocks.filter((b) => b.type === type);
  for (const extra of found.slice(1)) {
    const first = found[0] as Block;
    scope.diags.error(`Duplicate ${type} block`, `Only one "${type}" block is allowed. Another was defined at ${where(first.typeRange)}.`, headerRange(extra));
  }
  return found[0];
}

export function buildCors(block: Block | undefined, scope: LoadScope): CorsConfig | null {
  if (!block) return null;
  const r = scope.reader(block.body, 'cors');
  return {
    range: headerRange(block),
    allowedOrigins: r.value<string[]>('allowed_origins') ?? [],
    allowCredentials: r.value<boolean>('allow_credentials') ?? false,
    disable: r.value<boolean>('disable') ?? false,
    maxAge: r.value<number>('max_age') ?? null,
  };
}

/** "Invalid attribute value" at the attribute's expression: the type was right, the value is not allowed. */
export function invalid(r: AttrReader, scope: LoadScope, name: string, problem: string): void {
  scope.diags.error('Invalid attribute value', `Invalid value for attribute "${name}": ${problem}.`, r.attr(name)?.expr.range);
}
