import type { ModifierMap, Modifiers } from '../config/model.js';
import { evalOptional, type AttrCheck } from '../eval/eval-dyn.js';
import type { EvalScope } from '../eval/request-scope.js';

/** The attributes' names and types for their messages (made once, not per request). */
const CHECKS = {
  removeQuery: { name: 'remove_query_params', type: 'stringList' },
  setQuery: { name: 'set_query_params', type: 'modifierMap' },
  addQuery: { name: 'add_query_params', type: 'modifierMap' },
  removeForm: { name: 'remove_form_params', type: 'stringList' },
  setForm: { name: 'set_form_params', type: 'modifierMap' },
  addForm: { name: 'add_form_params', type: 'modifierMap' },
} as const satisfies Record<string, AttrCheck>;

/** Removes, sets (replacing every value) and adds parameters; null or an empty list under set removes. */
export function removeParams(params: URLSearchParams, names: readonly string[]): void {
  for (const name of names) params.delete(name);
}

export function setParams(params: URLSearchParams, map: ModifierMap): void {
  for (const [name, value] of Object.entries(map)) {
    params.delete(name);
    if (value === null) continue;
    for (const v of typeof value === 'string' ? [value] : value) params.append(name, v);
  }
}

export function addParams(params: URLSearchParams, map: ModifierMap): void {
  for (const [name, value] of Object.entries(map)) {
    if (value === null) continue;
    for (const v of typeof value === 'string' ? [value] : value) params.append(name, v);
  }
}

/** `remove_/set_/add_query_params` of one context on the upstream URL's query. */
export function applyQueryModifiers(params: URLSearchParams, modifiers: Modifiers, scope: EvalScope): void {
  const removed = evalOptional(modifiers.removeQueryParams, scope, CHECKS.removeQuery);
  if (removed) removeParams(params, removed);
  const toSet = evalOptional(modifiers.setQueryParams, scope, CHECKS.setQuery);
  if (toSet) setParams(params, toSet);
  const toAdd = evalOptional(modifiers.addQueryParams, scope, CHECKS.addQuery);
  if (toAdd) addParams(params, toAdd);
}

/** `remove_/set_/add_form_params` of one context on an urlencoded upstream body. */
export function applyFormModifiers(params: URLSearchParams, modifiers: Modifiers, scope: EvalScope): void {
  const removed = evalOptional(modifiers.removeFormParams, scope, CHECKS.removeForm);
  if (removed) removeParams(params, removed);
  const toSet = evalOptional(modifiers.setFormParams, scope, CHECKS.setForm);
  if (toSet) setParams(params, toSet);
  const toAdd = evalOptional(modifiers.addFormParams, scope, CHECKS.addForm);
  if (toAdd) addParams(params, toAdd);
}

export function hasFormModifiers(modifiers: Modifiers): boolean {
  return modifiers.removeFormParams !== null || modifiers.setFormParams !== null || modifiers.addFormParams !== null;
}
