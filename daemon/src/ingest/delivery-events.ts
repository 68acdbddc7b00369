import type { PublishInput } from '../control/event-bus.js';
import type { ClaimedRow, RecordedAttempt } from './outbox.js';
import { callbackTarget } from './callback-worker.js';

type Recorded = Pick<ClaimedRow, 'id' | 'ingest_job_id' | 'callback_url'>;

/**
 * Turns the callback worker's recorded attempts into `delivery.state` events. An attempt that
 * failed (the row PENDING again, or DEAD) is an event of its own, published at once: an
 * operator acts on each. Deliveries recorded as DELIVERED in one event-loop turn (one group
 * commit) share one event, so a worker delivering thousands a second publishes, and relays to
 * the other daemon processes, a few hundred events a second rather than thousands; a turn with
 * a single delivery reads as before. Consoles re-read their counts and tables on any
 * `delivery.state` event, so one per turn keeps them as current.
 */
export class DeliveryEvents {
  readonly #publish: (event: PublishInput) => void;
  #delivered: Array<{ row: Recorded; attempts: number }> = [];
  #scheduled: NodeJS.Immediate | null = null;

  constructor(publish: (event: PublishInput) => void) {
    this.#publish = publish;
  }

  recorded(row: Recorded, result: RecordedAttempt): void {
    if (result.status !== 'DELIVERED') {
      this.#publish(oneDelivery(row, result.status, result.attempts));
      return;
    }
    this.#delivered.push({ row, attempts: result.attempts });
    this.#scheduled ??= setImmediate(() => this.flush());
  }

  /** Publishes the deliveries held for this turn's event now. */
  flush(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = null;
    const delivered = this.#delivered;
    this.#delivered = [];
    if (delivered.length === 0) return;
    const first = delivered[0]!;
    if (delivered.length === 1) {
      this.#publish(oneDelivery(first.row, 'DELIVERED', first.attempts));
      return;
    }
    const last = delivered[delivered.length - 1]!;
    const urls = new Set(delivered.map((d) => d.row.callback_url));
    const target = urls.size === 1 ? callbackTarget(first.row.callback_url) : null;
    this.#publish({
      type: 'delivery.state',
      message: `${delivered.length} deliveries DELIVERED${target ? ` to ${target}` : ` to ${urls.size} targets`}: ${first.row.id} of job ${first.row.ingest_job_id} … ${last.row.id} of job ${last.row.ingest_job_id}`,
      details: { status: 'DELIVERED', deliveries: delivered.length, first: first.row.id, last: last.row.id, targets: urls.size, ...(target ? { target } : {}) },
    });
  }
}

/** The event of one attempt: a DEAD row is a warning. */
function oneDelivery(row: Recorded, status: RecordedAttempt['status'], attempts: number): PublishInput {
  return {
    type: 'delivery.state',
    level: status === 'DEAD' ? 'warn' : 'info',
    message: `delivery ${row.id} of job ${row.ingest_job_id} ${status} (attempt ${attempts})`,
    details: { delivery: row.id, job: row.ingest_job_id, attempt: attempts, status, target: callbackTarget(row.callback_url) },
  };
}
