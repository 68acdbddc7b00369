import type { CdsClientView, ClusterView } from '@portico/daemon/control';
import { ackLabel, endpointAddress } from '@portico/daemon/display';
import type { Tone } from '../format/state-label.js';
import { formatDuration, secondsSince } from '../format/duration.js';
import { printable } from '../format/fit.js';

// Health and ACK/NACK are named once for both consoles in the display layer.
export { healthLabel } from '@portico/daemon/display';

// Moved to format/fit.ts (the Config view's login errors use them too); kept here for the clusters view's imports.
export { printable, wrapLines } from '../format/fit.js';

/** `10.0.0.1:8080`, `[::1]:80`, with ` +tls`/` h2` flags. */
export function endpointText(c: ClusterView): string {
  const e = c.endpoints[0];
  const address = e ? endpointAddress(e) : '-';
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
  const label = ackLabel(c, currentVersion);
  const answer = label.word === 'NACK' ? c.lastNack : label.word === 'ACK' ? c.lastAck : null;
  return { text: answer ? `${label.word} ${short(answer.version, 6)} ${ago(answer.at, nowMs)}` : label.word, tone: label.tone };
}

export function short(version: string | null, length = 8): string {
  return version ? version.slice(0, length) : '-';
}

function ago(iso: string, nowMs: number): string {
  return formatDuration(secondsSince(iso, nowMs));
}
