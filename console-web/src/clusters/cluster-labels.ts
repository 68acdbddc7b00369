import type { CdsClientView, CdsHealthStatus, ClusterView } from '@portico/daemon/control';
import type { Label } from '../status/labels';

const HEALTH: Record<CdsHealthStatus, Label> = {
  HEALTHY: { glyph: '●', word: 'HEALTHY', tone: 'good' },
  DEGRADED: { glyph: '◐', word: 'DEGRADED', tone: 'busy' },
  UNHEALTHY: { glyph: '✗', word: 'UNHEALTHY', tone: 'bad' },
  UNKNOWN: { glyph: '○', word: 'UNKNOWN', tone: 'idle' },
};

/** The endpoint's health_status: green, yellow, red, grey. */
export function healthLabel(status: CdsHealthStatus): Label {
  return HEALTH[status] ?? { glyph: '?', word: String(status), tone: 'idle' };
}

export function endpointText(c: ClusterView): string {
  return c.endpoints.map((e) => `${e.address.includes(':') ? `[${e.address}]` : e.address}:${e.port}`).join(', ');
}

export function subscriptionText(c: CdsClientView): string {
  const names = c.subscriptions.names;
  if (c.subscriptions.wildcard) return names.length > 0 ? `* (wildcard) + ${names.join(', ')}` : '* (wildcard)';
  return names.length === 0 ? '(nothing)' : names.join(', ');
}

/** NACK when the newest answer was a NACK; ACK of the current version green, of an older one yellow. */
export function ackLabel(c: CdsClientView, currentVersion: string): Label {
  if (c.lastNack && (!c.lastAck || c.lastNack.at >= c.lastAck.at)) return { glyph: '✗', word: 'NACK', tone: 'bad' };
  if (c.lastAck) return { glyph: '●', word: 'ACK', tone: c.lastAck.version === currentVersion ? 'good' : 'busy' };
  return { glyph: '○', word: c.lastVersionSent ? 'awaiting ACK' : 'nothing sent', tone: 'idle' };
}
