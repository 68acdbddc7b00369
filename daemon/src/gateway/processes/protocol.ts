/*
 * The messages between the daemon (cluster primary) and its gateway serving processes, over
 * the cluster's IPC channel (JSON). Replies carry the `id` of what they answer.
 */
import type { LogFormat, LogLevel } from '../../core/logger.js';
import type { EventDetails } from '../../control/client-types.js';
import type { LoginStatus } from '../access/access-check.js';
import type { AccessDenial, BackendHealth } from '../contracts.js';
import type { FrontLimits } from '../http/front-limits.js';
import type { FamilySnapshot } from '../metrics/exposition.js';

/** What a serving process needs before its first configuration. */
export interface ServingInit {
  readonly t: 'init';
  /** 1-based, for its log lines. */
  readonly index: number;
  /** The gateway's environment (`env` of the configuration), as the daemon resolved it. */
  readonly env: Record<string, string | undefined>;
  readonly limits: FrontLimits;
  readonly shutdownDelayMs: number;
  readonly shutdownTimeoutMs: number;
  readonly dataDir: string;
  readonly logFormat: LogFormat;
  readonly logLevel: LogLevel;
}

export type ToServing =
  | ServingInit
  /** Load these configuration texts (file path → text, in load order), build them and open their ports; do not serve them yet. */
  | { readonly t: 'prepare'; readonly id: number; readonly texts: readonly (readonly [string, string])[] }
  | { readonly t: 'commit'; readonly id: number }
  | { readonly t: 'abort'; readonly id: number }
  /** The backends' health as the daemon's checks found it. */
  | { readonly t: 'health'; readonly snapshot: Readonly<Record<string, BackendHealth>> }
  | { readonly t: 'metrics'; readonly id: number }
  /** Whether the SAML assertion of a `claim` was fresh (not used before in any serving process). */
  | { readonly t: 'claimed'; readonly id: number; readonly fresh: boolean }
  /** Graceful stop: draining, the shutdown delay and timeout, then exit. */
  | { readonly t: 'stop' };

export type FromServing =
  /** Listening for the daemon's messages (one sent before would be lost): the daemon sends the init. */
  | { readonly t: 'up' }
  | { readonly t: 'ready' }
  | { readonly t: 'prepared'; readonly id: number; readonly error: string | null }
  | { readonly t: 'committed'; readonly id: number; readonly addresses: readonly string[] }
  | { readonly t: 'aborted'; readonly id: number }
  | { readonly t: 'metrics'; readonly id: number; readonly families: readonly FamilySnapshot[] }
  | { readonly t: 'denial'; readonly denial: AccessDenial }
  | { readonly t: 'login'; readonly status: readonly LoginStatus[] }
  /** A SAML assertion about to log someone in: the daemon keeps the used ones for all processes (expiresAtMs null: never). */
  | { readonly t: 'claim'; readonly id: number; readonly key: string; readonly expiresAtMs: number | null; readonly nowMs: number }
  /** A warn or error line the process wrote, for the consoles' Events. */
  | { readonly t: 'notice'; readonly level: 'warn' | 'error'; readonly message: string; readonly details: EventDetails | null };
