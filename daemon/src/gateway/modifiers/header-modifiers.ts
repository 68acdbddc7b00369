import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { ModifierMap, ModifierValue, Modifiers } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import { evalOptional, type AttrCheck } from '../eval/eval-dyn.js';
import type { EvalScope } from '../eval/request-scope.js';

/** Headers with lower-case names; several values as an array. */
export type HeaderRecord = Record<string, string | string[]>;

/** The attributes' names and types for their messages, one set a side (made once, not per request). */
const CHECKS = {
  request: {
    remove: { name: 'remove_request_headers', type: 'stringList' },
    set: { name: 'set_request_headers', type: 'modifierMap' },
    add: { name: 'add_request_headers', type: 'modifierMap' },
  },
  response: {
    remove: { name: 'remove_response_headers', type: 'stringList' },
    set: { name: 'set_response_headers', type: 'modifierMap' },
    add: { name: 'add_response_headers', type: 'modifierMap' },
  },
} as const satisfies Record<'request' | 'response', Record<'remove' | 'set' | 'add', AttrCheck>>;

function values(value: ModifierValue): string[] {
  if (value === null) return [];
  return typeof value === 'string' ? [value] : [...value];
}

function checked(name: string, list: readonly string[]): string[] {
  try {
    validateHeaderName(name);
    for (const v of list) validateHeaderValue(name, v);
  } catch (error) {
    throw new GatewayError('evaluation', `invalid header ${JSON.stringify(name)} from a modifier: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return [...list];
}

export function removeHeaders(headers: HeaderRecord, names: readonly string[]): void {
  for (const name of names) delete headers[name.toLowerCase()];
}

/** Replaces each header; null or an empty list removes it. */
export function setHeaders(headers: HeaderRecord, map: ModifierMap): void {
  for (const [rawName, value] of Object.entries(map)) {
    const name = rawName.toLowerCase();
    const list = checked(name, values(value));
    if (list.length === 0) delete headers[name];
    else headers[name] = list.length === 1 ? (list[0] as string) : list;
  }
}

/** Appends values after the existing ones. */
export function addHeaders(headers: HeaderRecord, map: ModifierMap): void {
  for (const [rawName, value] of Object.entries(map)) {
    const name = rawName.toLowerCase();
    const list = checked(name, values(value));
    if (list.length === 0) continue;
    const existing = headers[name];
    const all = existing === undefined ? list : [...(typeof existing === 'string' ? [existing] : existing), ...list];
    headers[name] = all.length === 1 ? (all[0] as string) : all;
  }
}

/** One context's header modifiers in the spec's order: remove, set, add. */
function applyHeaderGroup(headers: HeaderRecord, remove: Modifiers['removeRequestHeaders'], set: Modifiers['setRequestHeaders'], add: Modifiers['addRequestHeaders'], scope: EvalScope, side: 'request' | 'response'): void {
  const checks = CHECKS[side];
  const removed = evalOptional(remove, scope, checks.remove);
  if (removed) removeHeaders(headers, removed);
  const toSet = evalOptional(set, scope, checks.set);
  if (toSet) setHeaders(headers, toSet);
  const toAdd = evalOptional(add, scope, checks.add);
  if (toAdd) addHeaders(headers, toAdd);
  if (side === 'request' && (removed || toSet || toAdd)) dropAliases(headers, [...(removed ?? []), ...Object.keys(toSet ?? {}), ...Object.keys(toAdd ?? {})]);
}

/**
 * Request headers that differ from one a modifier removed, set or added only in `_` for `-`
 * (or back) are left out: CGI-style backends (WSGI, Rack, PHP) read `X_User` and `X-User` as
 * one (HTTP_X_USER), so a client's `X_User: admin` could stand in for the `X-User` the gateway
 * set from a token, or bring back one it removed.
 */
function dropAliases(headers: HeaderRecord, names: readonly string[]): void {
  const modified = new Map<string, string>();
  for (const name of names) {
    const lower = name.toLowerCase();
    modified.set(lower.replaceAll('_', '-'), lower);
  }
  for (const key in headers) {
    const own = modified.get(key.includes('_') ? key.replaceAll('_', '-') : key);
    if (own !== undefined && own !== key) delete headers[key];
  }
}

/** `remove_/set_/add_response_headers` of one context (server, files, spa, api, endpoint, ...) on a client response's headers. */
export function applyResponseHeaderModifiers(headers: HeaderRecord, modifiers: Modifiers, scope: EvalScope): void {
  applyHeaderGroup(headers, modifiers.removeResponseHeaders, modifiers.setResponseHeaders, modifiers.addResponseHeaders, scope, 'response');
}

/** `remove_/set_/add_request_headers` of one context on an outgoing request's headers. */
export function applyRequestHeaderModifiers(headers: HeaderRecord, modifiers: Modifiers, scope: EvalScope): void {
  applyHeaderGroup(headers, modifiers.removeRequestHeaders, modifiers.setRequestHeaders, modifiers.addRequestHeaders, scope, 'request');
}
