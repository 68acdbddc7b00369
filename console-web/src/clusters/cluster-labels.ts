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

const GRPC_CODES = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED'];

/** A NACK's `error_detail.code` (google.rpc.Code) as `3 INVALID_ARGUMENT`. */
export function nackCodeText(code: number): string {
  const name = GRPC_CODES[code];
  return name ? `${code} ${name}` : String(code);
}

/** The stream kind as operators say it. */
export function streamKindText(kind: CdsClientView['kind']): { short: string; long: string } {
  return kind === 'sotw' ? { short: 'SotW', long: 'state of the world (StreamClusters)' } : { short: 'delta', long: 'incremental (DeltaClusters)' };
}
