import type { PublishInput } from '../../control/event-bus.js';
import type { AccessDenial } from '../contracts.js';

export interface DenialDigestOptions {
  readonly publish: (event: PublishInput) => unknown;
  /** One summary per error type and access control per window at most. */
  readonly windowMs?: number;
  readonly now?: () => number;
}

interface Window {
  readonly startedAt: number;
  count: number;
  readonly endpoints: Set<string>;
  readonly timer: NodeJS.Timeout;
}

/**
 * Access-control refusals for the Events view without flooding it: the first refusal of a
 * type by a control is published at once, the rest of its window as one summary with the
 * count and the rate. Events name the type, the control and the route pattern; never a
 * token, a password, a header or a query string.
 */
export class DenialDigest {
  readonly #publish: (event: PublishInput) => unknown;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, Window>();

  constructor({ publish, windowMs = 10_000, now = Date.now }: DenialDigestOptions) {
    this.#publish = publish;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  record(denial: AccessDenial): void {
    const by = refusedBy(denial.type, denial.label);
    const key = `${denial.type}\u0000${denial.label ?? ''}`;
    const open = this.#windows.get(key);
    const where = denial.endpoint ?? '(no route)';
    if (open) {
      open.count += 1;
      open.endpoints.add(where);
      return;
    }
    this.#publish({ type: 'gateway.access_denied', level: 'warn', message: `access denied: ${denial.type} by ${by} on ${denial.method} ${where}` });
    this.#startWindow(key, by, denial.type);
  }

  /** Publishes what is pending and stops the timers (daemon stop). */
  close(): void {
    for (const key of [...this.#windows.keys()]) this.#flush(key, false);
  }

  #startWindow(key: string, by: string, type: string): void {
    const timer = setTimeout(() => this.#flush(key, true, by, type), this.#windowMs);
    timer.unref();
    this.#windows.set(key, { startedAt: this.#now(), count: 0, endpoints: new Set(), timer });
  }

  #flush(key: string, reopen: boolean, by?: string, type?: string): void {
    const window = this.#windows.get(key);
    if (!window) return;
    clearTimeout(window.timer);
    this.#windows.delete(key);
    if (window.count === 0) return;
    const [kind, label] = key.split('\u0000') as [string, string];
    const minutes = Math.max(1, this.#now() - window.startedAt) / 60_000;
    const rate = window.count / minutes;
    const routes = [...window.endpoints].slice(0, 3).join(', ') + (window.endpoints.size > 3 ? `, +${window.endpoints.size - 3} more` : '');
    this.#publish({
      type: 'gateway.access_denied',
      level: 'warn',
      message: `access denied ×${window.count} more: ${kind} by ${by ?? refusedBy(kind, label === '' ? null : label)} on ${routes} (${rate < 10 ? rate.toFixed(1) : Math.round(rate)}/min)`,
    });
    // Refusals went on: keep summarising, so a flood stays one line per window.
    if (reopen && by !== undefined && type !== undefined) this.#startWindow(key, by, type);
  }
}

/** Refusals not made by an access control: the gateway's own checks (http/loose-routes.ts, http/method-override.ts). */
const OWN_CHECKS: Readonly<Record<string, string>> = { path_escape: 'the path check', method_override: 'the method check' };

function refusedBy(type: string, label: string | null): string {
  if (label !== null) return `access control "${label}"`;
  return OWN_CHECKS[type] ?? 'the permission check';
}
