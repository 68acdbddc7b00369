import type { ModifierMap, Modifiers } from '../config/model.js';
import { evalOptional } from '../eval/eval-dyn.js';
import type { EvalScope } from '../eval/request-scope.js';

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
  const removed = evalOptional(modifiers.removeQueryParams, scope, { name: 'remove_query_params', type: 'stringList' });
  if (removed) removeParams(params, removed);
  const toSet = evalOptional(modifiers.setQueryParams, scope, { name: 'set_query_params', type: 'modifierMap' });
  if (toSet) setParams(params, toSet);
  const toAdd = evalOptional(modifiers.addQueryParams, scope, { name: 'add_query_params', type: 'modifierMap' });
  if (toAdd) addParams(params, toAdd);
}

/** `remove_/set_/add_form_params` of one context on an urlencoded upstream body. */
export function applyFormModifiers(params: URLSearchParams, modifiers: Modifiers, scope: EvalScope): void {
  const removed = evalOptional(modifiers.removeFormParams, scope, { name: 'remove_form_params', type: 'stringList' });
  if (removed) removeParams(params, removed);
  const toSet = evalOptional(modifiers.setFormParams, scope, { name: 'set_form_params', type: 'modifierMap' });
  if (toSet) setParams(params, toSet);
  const toAdd = evalOptional(modifiers.addFormParams, scope, { name: 'add_form_params', type: 'modifierMap' });
  if (toAdd) addParams(params, toAdd);
}

export function hasFormModifiers(modifiers: Modifiers): boolean {
  return modifiers.removeFormParams !== null || modifiers.setFormParams !== null || modifiers.addFormParams !== null;
}
