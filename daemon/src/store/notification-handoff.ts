import type { NotificationOptions } from './notifications.js';

/** Hands one message to the listener; its throw reaches onMessageError, not the channel's loop. */
export function handOn(options: NotificationOptions, payload: string, origin: string): void {
  try {
    options.onMessage(payload, origin);
  } catch (error) {
    options.onMessageError?.(error);
  }
}
