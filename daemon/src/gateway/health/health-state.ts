/**
 * The health state machine (the peer's rule, as the spec's table words it): `unknown` until
 * the first check; a failed check below `failure_threshold` consecutive failures is
 * `degraded`, reaching it is `unhealthy`; one passing check is `healthy` again.
 */
import type { BackendHealth } from '../contracts.js';

export type HealthState = BackendHealth['state'];

export interface CheckOutcome {
  /** "" when the check passed. */
  readonly error: string;
  readonly at: Date;
  readonly latencyMs: number;
}

/** The health after one finished check. */
export function afterCheck(previous: BackendHealth, outcome: CheckOutcome, failureThreshold: number): BackendHealth {
  const passed = outcome.error === '';
  const failures = passed ? 0 : previous.failures + 1;
  const state: HealthState = passed ? 'healthy' : failures >= failureThreshold ? 'unhealthy' : 'degraded';
  return {
    state,
    healthy: state !== 'unhealthy',
    error: outcome.error,
    lastCheckAt: outcome.at.toISOString(),
    failures,
    latencyMs: outcome.latencyMs,
    since: state === previous.state ? previous.since : outcome.at.toISOString(),
    checked: true,
  };
}

/** Before the first check of a backend with beta_health. */
export function unknownHealth(at: Date): BackendHealth {
  return { state: 'unknown', healthy: true, error: '', lastCheckAt: null, failures: 0, latencyMs: null, since: at.toISOString(), checked: true };
}

/** A backend without beta_health: healthy, never checked. */
export function uncheckedHealth(at: Date): BackendHealth {
  return { state: 'healthy', healthy: true, error: '', lastCheckAt: null, failures: 0, latencyMs: null, since: at.toISOString(), checked: false };
}
