/**
 * `custom_log_fields` of a request: the chain server → api/files/spa → endpoint merged with
 * inner keys winning, each object evaluated per request. A field that fails to evaluate is
 * left out and its error is reported, so a bad expression never breaks the request.
 */
import type { CustomLogFields, Dyn, JsonObject } from '../config/model.js';

export interface CustomFieldsResult {
  readonly custom: Record<string, unknown>;
  /** One message per object that failed to evaluate. */
  readonly problems: string[];
}

export function evaluateCustomLogFields(chain: CustomLogFields, evaluate: (dyn: Dyn<JsonObject>) => unknown): CustomFieldsResult {
  const custom: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const dyn of chain) {
    try {
      const value = evaluate(dyn);
      if (value === null || value === undefined) continue;
      if (typeof value !== 'object' || Array.isArray(value)) {
        problems.push(`custom_log_fields: an object is required, got ${Array.isArray(value) ? 'a list' : typeof value}`);
        continue;
      }
      Object.assign(custom, value);
    } catch (error) {
      problems.push(`custom_log_fields: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { custom, problems };
}
