import type { CdsClientView, CdsHealthStatus, ClusterView } from '@portico/daemon/control';
import type { Tone } from '../format/state-label.js';
import { formatDuration, secondsSince } from '../format/duration.js';
import { printable } from '../format/fit.js';

// Moved to format/fit.ts (the Config view's login errors use them too); kept here for the clusters view's imports.
export { printable, wrapLines } from '../format/fit.js';

export interface HealthLabel {
  glyph: string;
  word: string;
  tone: Tone;
}

const HEALTH: Record<CdsHealthStatus, HealthLabel> = {
  HEALTHY: { glyph: '●', word: 'HEALTHY', tone: 'good' },
  DEGRADED: { glyph: '◐', word: 'DEGRADED', tone: 'busy' },
  UNHEALTHY: { glyph: '✗', word: 'UNHEALTHY', tone: 'bad' },
  UNKNOWN: { glyph: '○', word: 'UNKNOWN', tone: 'idle' },
};

/** Green healthy, yellow degraded, red unhealthy, grey unknown (the endpoint's health_status). */
export function healthLabel(status: CdsHealthStatus): HealthLabel {
  return HEALTH[status] ?? { glyph: '?', word: String(status), tone: 'plain' };
}

/** `10.0.0.1:8080`, `[::1]:80`, with ` +tls`/` h2` flags. */
export function endpointText(c: ClusterView): string {
  const e = c.endpoints[0];
  const address = e ? `${e.address.includes(':') ? `[${e.address}]` : e.address}:${e.port}` : '-';
  return `${address}${c.tls ? ' tls' : ''}${c.http2 ? ' h2' : ''}`;
}

export function subscriptionText(c: CdsClientView): string {
  const names = c.subscriptions.names.map(printable);
  if (c.subscriptions.wildcard) return names.length > 0 ? `* + ${names.length}` : '*';
  if (names.length === 0) return '(none)';
  return names.length <= 2 ? names.join(',') : `${names.slice(0, 2).join(',')} +${names.length - 2}`;
}

export interface AckState {
  text: string;
  tone: Tone;
}

/** What the client did (`ACK 3f9a1c 4s`: version prefix and how long ago) with what it was sent: ACKed the current version, NACKed it, or nothing yet. */
export function ackState(c: CdsClientView, currentVersion: string, nowMs: number): AckState {
  const nack = c.lastNack;
  const ack = c.lastAck;
  if (nack && (!ack || nack.at >= ack.at)) return { text: `NACK ${short(nack.version, 6)} ${ago(nack.at, nowMs)}`, tone: 'bad' };
  if (ack) return { text: `ACK ${short(ack.version, 6)} ${ago(ack.at, nowMs)}`, tone: ack.version === currentVersion ? 'good' : 'busy' };
  return { text: c.lastVersionSent ? 'awaiting ACK' : 'nothing sent', tone: 'idle' };
}

export function short(version: string | null, length = 8): string {
  return version ? version.slice(0, length) : '-';
}

function ago(iso: string, nowMs: number): string {
  return formatDuration(secondsSince(iso, nowMs));
}
