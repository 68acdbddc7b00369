import type { GatewayLogRecord } from '../contracts.js';
import type { GatewayError } from '../errors/error-types.js';

export interface ValidationOutcome {
  /** Every violation found, request and response; logged as `validation` when there are any. */
  readonly violations: readonly string[];
  /** The error the request fails with, when a violation is not ignored. */
  readonly error: GatewayError | null;
}

/**
 * The backend log records of one openapi backend, held while their request is validated:
 * the exchange writes its record when the response body ended, which is before the body
 * could be validated, so the record waits for the outcome and is written with it.
 * Records are matched to requests by request id and block name (one exchange per block at a
 * time; an oauth2 retry's earlier record is written as it was when the next one arrives).
 */
export class HeldRecords {
  readonly #open = new Map<string, { record: GatewayLogRecord | null }>();

  constructor(private readonly write: ((record: GatewayLogRecord) => void) | null) {}

  /** The log function the backend's client writes to. */
  readonly sink = (record: GatewayLogRecord): void => {
    const held = this.#open.get(keyOf(record['uid'], record['handler']));
    if (!held) {
      this.write?.(record);
      return;
    }
    if (held.record) this.write?.(held.record);
    held.record = record;
  };

  hold(requestId: string, handler: string): void {
    this.#open.set(keyOf(requestId, handler), { record: null });
  }

  /** Writes the held record with the outcome (a record that comes later is written as it comes). */
  release(requestId: string, handler: string, outcome: ValidationOutcome): void {
    const key = keyOf(requestId, handler);
    const held = this.#open.get(key);
    this.#open.delete(key);
    if (held?.record) this.write?.(annotated(held.record, outcome));
  }

  /** A record for a request that was never sent, with its outcome. */
  writeNow(record: GatewayLogRecord, outcome: ValidationOutcome): void {
    this.write?.(annotated(record, outcome));
  }
}

function annotated(record: GatewayLogRecord, { violations, error }: ValidationOutcome): GatewayLogRecord {
  return {
    ...record,
    ...(error ? { level: 'error', error_type: error.kind, message: error.detail } : {}),
    ...(violations.length > 0 ? { validation: violations } : {}),
  };
}

function keyOf(requestId: unknown, handler: unknown): string {
  return `${String(requestId)}\u0000${String(handler)}`;
}
