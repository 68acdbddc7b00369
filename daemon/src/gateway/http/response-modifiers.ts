/**
 * Response header modifiers of the contexts the front answers for itself (server, files,
 * spa): each context in order, each in the order remove, set, add. Endpoint responses get
 * theirs from the endpoint handler.
 */
import type { Dyn, ModifierMap, Modifiers } from '../config/model.js';

export type Evaluate = <T>(dyn: Dyn<T>) => T;

export function applyResponseHeaderModifiers(headers: Record<string, string | string[]>, contexts: readonly Modifiers[], evaluate: Evaluate): void {
  for (const modifiers of contexts) {
    if (modifiers.removeResponseHeaders) for (const name of evaluate(modifiers.removeResponseHeaders)) delete headers[name.toLowerCase()];
    if (modifiers.setResponseHeaders) setAll(headers, evaluate(modifiers.setResponseHeaders), false);
    if (modifiers.addResponseHeaders) setAll(headers, evaluate(modifiers.addResponseHeaders), true);
  }
}

function setAll(headers: Record<string, string | string[]>, map: ModifierMap, add: boolean): void {
  for (const [rawName, value] of Object.entries(map)) {
    const name = rawName.toLowerCase();
    if (value === null) {
      if (!add) delete headers[name];
      continue;
    }
    const values = typeof value === 'string' ? [value] : [...value];
    if (!add) {
      headers[name] = values.length === 1 ? values[0]! : values;
      continue;
    }
    const current = headers[name];
    const merged = [...(current === undefined ? [] : Array.isArray(current) ? current : [current]), ...values];
    headers[name] = merged.length === 1 ? merged[0]! : merged;
  }
}
