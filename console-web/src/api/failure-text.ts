import { UNREACHABLE } from './control-client';

/** True when the daemon answered with an error (a tRPC error shape), false when it was not reached at all. */
export function daemonAnswered(error: unknown): boolean {
  const data = typeof error === 'object' && error !== null ? (error as { data?: unknown }).data : undefined;
  return typeof data === 'object' && data !== null;
}

/** What a failed control call says to the operator: the daemon's own message, or that it was not reached (never a browser's "Failed to fetch"). */
export function failureText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // The control client words an unreachable daemon already; a browser's own fetch error (or a dropped WebSocket) gets the same words.
  if (!daemonAnswered(error) && /failed to fetch|networkerror|load failed|websocket/i.test(message)) return UNREACHABLE;
  return message || 'The daemon did not answer.';
}
