// How both consoles word a webhook delivery's tries and its last error.
import type { DeliveryStatusName } from './labels.js';

/** `2/5`: attempts of the current round out of the retry schedule's. */
export function triesText(d: { attempts_in_round: number; max_attempts: number }): string {
  return `${d.attempts_in_round}/${d.max_attempts}`;
}

/** `2/5`, or `1/5 (6 in all)` after a reset: the attempt log numbers every attempt. */
export function triesDetail(d: { attempts: number; attempts_in_round: number; max_attempts: number }): string {
  return d.attempts > d.attempts_in_round ? `${triesText(d)} (${d.attempts} in all)` : triesText(d);
}

/** The last failed attempt's error of a delivery still failing, else null. */
export function lastErrorText(d: { status: DeliveryStatusName; last_error: string | null; last_status_code: number | null }): string | null {
  if (d.status === 'DELIVERED') return null;
  return d.last_error ?? (d.last_status_code !== null ? `HTTP ${d.last_status_code}` : null);
}
