// How both consoles name what the CDS serves: endpoint health, ACK/NACK, gRPC codes, stream kinds.
import { labelOf, type Label } from './labels.js';

export type CdsHealthName = 'HEALTHY' | 'DEGRADED' | 'UNHEALTHY' | 'UNKNOWN';
const HEALTH: Record<CdsHealthName, Label> = {
  HEALTHY: { glyph: '●', word: 'HEALTHY', tone: 'good' },
  DEGRADED: { glyph: '◐', word: 'DEGRADED', tone: 'busy' },
  UNHEALTHY: { glyph: '✗', word: 'UNHEALTHY', tone: 'bad' },
  UNKNOWN: { glyph: '○', word: 'UNKNOWN', tone: 'idle' },
};

/** The endpoint's health_status: green, yellow, red, grey. */
export function healthLabel(status: CdsHealthName): Label {
  return labelOf(HEALTH, status);
}

/** `10.0.0.1:8080`, `[::1]:80`. */
export function endpointAddress(e: { address: string; port: number }): string {
  return `${e.address.includes(':') ? `[${e.address}]` : e.address}:${e.port}`;
}

/** What a CDS client last said about what it was sent. */
export interface AckFacts {
  lastAck: { version: string; at: string } | null;
  lastNack: { version: string; at: string } | null;
  lastVersionSent: string | null;
}

/** NACK when the newest answer was a NACK; ACK of the current version green, of an older one yellow. */
export function ackLabel(c: AckFacts, currentVersion: string): Label {
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
export function streamKindText(kind: 'sotw' | 'delta'): { short: string; long: string } {
  return kind === 'sotw' ? { short: 'SotW', long: 'state of the world (StreamClusters)' } : { short: 'delta', long: 'incremental (DeltaClusters)' };
}
