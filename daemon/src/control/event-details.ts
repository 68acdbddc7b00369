import type { LogFields } from '../core/logger.js';
import type { EventDetails } from './client-types.js';

/** Longest text kept per detail; a response body or a stack must not fill the console. */
const MAX_TEXT = 500;

/**
 * The fields of a warn/error log line as event details, so the consoles show the ids and the
 * error behind `callback_attempt_failed` and not the bare word. `fields` comes from the logger,
 * which already wrote secret-looking keys as `***`; user info in URLs is dropped here as well.
 * `component` is left out: the event's message starts with it.
 */
export function eventDetails(fields: LogFields): EventDetails | undefined {
  const details: EventDetails = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'component' || value === undefined) continue;
    details[key] = detailValue(value);
  }
  return Object.keys(details).length > 0 ? details : undefined;
}

function detailValue(value: unknown): string | number | boolean | null {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return cut(withoutUserInfo(value));
  if (value instanceof Error) return cut(withoutUserInfo(value.message));
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return cut(withoutUserInfo(text));
}

/** `https://user:pass@host/` → `https://host/`, wherever a URL sits in the text. */
function withoutUserInfo(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"']*@/gi, '$1');
}

function cut(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}
