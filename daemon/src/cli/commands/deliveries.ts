import { createInterface } from 'node:readline/promises';
import { userInfo, hostname } from 'node:os';
import { DEFAULT_CONTROL_ADDR } from '../../core/settings.js';
import { UsageError } from '../../core/errors.js';
import { plural } from '../../display/counts.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../ingest/types.js';
import { connectControl, describeCallError, formatTable } from '../control-client.js';
import { parseCommandArgs } from '../parse.js';

const HELP = `Usage: portico deliveries <command> [options]

Webhook callback deliveries of the ingest service, on the running daemon.

Commands:
  list [--status S] [--job ID] [--callback-url TEXT] [--json]
                       deliveries, newest first (status: ${DELIVERY_STATUSES.join(', ')})
  reset (--id ID... | --job ID | --callback-url TEXT | --tenant T | --all) [--yes] [--dry-run]
                       DEAD deliveries back to PENDING, due now, for a new round of the retry
                       schedule (attempt numbers go on); prints how many match and asks before
                       resetting (--yes: don't ask; needed without a terminal)
  retry ID [--yes] [--dry-run]
                       a PENDING delivery due now: a callback worker attempts it at its next poll
                       instead of waiting out the retry schedule; shows the delivery and asks

Options:
      --url URL          control API (default http://<PORTICO_CONTROL_ADDR or ${DEFAULT_CONTROL_ADDR}>)
      --token-file FILE  file holding the control token (default <data dir>/control.token)
      --data-dir DIR     data directory (default PORTICO_DATA_DIR or ./data)
  -h, --help             show this help`;

const OPTIONS = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  'data-dir': { type: 'string' },
  status: { type: 'string' },
  job: { type: 'string' },
  id: { type: 'string', multiple: true },
  'callback-url': { type: 'string' },
  tenant: { type: 'string' },
  all: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  limit: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `portico deliveries ...`; returns the exit code. */
export async function deliveriesCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '-h' || sub === '--help') {
    (sub === undefined ? console.error : console.log)(HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'list' && sub !== 'reset' && sub !== 'retry') throw new UsageError(`unknown command 'deliveries ${sub}'`, HELP);
  const { values, positionals } = parseCommandArgs(rest, OPTIONS, HELP, sub === 'retry');
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (sub === 'retry' && (positionals.length !== 1 || !UUID.test(positionals[0]!))) {
    throw new UsageError(`'deliveries retry' needs exactly one delivery ID, a UUID such as 0b7e2a4c-1111-4222-8333-444455556666 (see portico deliveries list --status pending)`, HELP);
  }
  const status = values.status?.toUpperCase();
  if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) throw new UsageError(`--status must be one of ${DELIVERY_STATUSES.join(', ')}`, HELP);
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new UsageError('--limit must be a whole number from 1 to 500', HELP);
  const selector = { ids: values.id, jobId: values.job, url: values['callback-url'], tenantId: values.tenant, all: values.all };
  if (sub === 'reset' && !selector.ids && !selector.jobId && !selector.url && !selector.tenantId && !selector.all) {
    throw new UsageError("'deliveries reset' needs --id, --job, --callback-url, --tenant or --all", HELP);
  }

  let connection: ReturnType<typeof connectControl>;
  try {
    connection = connectControl({ url: values.url, tokenFile: values['token-file'], dataDir: values['data-dir'] });
  } catch (error) {
    console.error(`portico deliveries: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const { client, url } = connection;
  try {
    if (sub === 'list') {
      const page = await client.deliveries.list.query({ status: status as DeliveryStatus | undefined, jobId: values.job, url: values['callback-url'], tenantId: values.tenant, limit, offset: 0 });
      if (values.json) console.log(JSON.stringify(page, null, 2));
      else console.log(formatDeliveries(page.items, page.total));
      return 0;
    }
    if (sub === 'retry') return await retry(client, positionals[0]!, { yes: values.yes === true, dryRun: values['dry-run'] === true });
    const { count } = await client.deliveries.previewReset.query(selector);
    const matching = plural(count, 'DEAD delivery', 'DEAD deliveries');
    console.log(`${matching} match`);
    if (count === 0 || values['dry-run']) return 0;
    if (!values.yes) {
      if (!process.stdin.isTTY) {
        console.error('portico deliveries reset: not a terminal; pass --yes to reset without asking');
        return 2;
      }
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      const answer = await rl.question(`Reset ${matching} to PENDING? [y/N] `);
      rl.close();
      if (!/^y(es)?$/i.test(answer.trim())) {
        console.log('nothing reset');
        return 1;
      }
    }
    const result = await client.deliveries.resetDead.mutate({ ...selector, actor: cliActor() });
    console.log(`reset ${plural(result.count, 'delivery', 'deliveries')} to PENDING (reset ${result.resetId}); the callback worker picks them up at its next poll`);
    return 0;
  } catch (error) {
    console.error(`portico deliveries ${sub}: ${describeCallError(error, url)}`);
    return 1;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `portico deliveries retry ID`: shows the delivery, asks, then makes it due now. */
async function retry(client: ReturnType<typeof connectControl>['client'], id: string, { yes, dryRun }: { yes: boolean; dryRun: boolean }): Promise<number> {
  const delivery = await client.deliveries.get.query({ id });
  console.log(describeDelivery(delivery, Date.now()));
  if (delivery.status !== 'PENDING') {
    const what = delivery.status === 'DEAD' ? `reset it to PENDING instead: portico deliveries reset --id ${id}` : 'it needs no retry';
    console.error(`portico deliveries retry: only a PENDING delivery can be retried now; this one is ${delivery.status} (${what})`);
    return 1;
  }
  if (dryRun) return 0;
  if (!yes) {
    if (!process.stdin.isTTY) {
      console.error('portico deliveries retry: not a terminal; pass --yes to retry without asking');
      return 2;
    }
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await rl.question('Retry it now? [y/N] ');
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      console.log('nothing changed; the delivery keeps its schedule');
      return 1;
    }
  }
  const result = await client.deliveries.retryNow.mutate({ id, actor: cliActor() });
  console.log(`delivery ${id} is due now (recorded as ${result.resetId}); a callback worker attempts it at its next poll`);
  return 0;
}

/** One paragraph on a delivery: state, the round's attempts, the last outcome, the next attempt. */
export function describeDelivery(d: DeliveryLine & { last_error: string | null }, nowMs: number): string {
  const lines = [`delivery ${d.id} of job ${d.ingest_job_id} to ${d.callback_url}`, `  ${d.status}, ${triesText(d)} in this round${d.attempts > d.attempts_in_round ? `, ${d.attempts} in all` : ''}`];
  if (d.last_error || d.last_status_code !== null) lines.push(`  last attempt: ${d.last_status_code !== null ? `HTTP ${d.last_status_code}` : 'no answer'}${d.last_error ? ` (${d.last_error})` : ''}`);
  if (d.status === 'PENDING') {
    const wait = Date.parse(d.next_attempt_at) - nowMs;
    lines.push(`  next attempt: ${d.next_attempt_at}${wait > 0 ? ` (in ${Math.ceil(wait / 1000)} s)` : ' (due now)'}`);
  }
  return lines.join('\n');
}

function triesText(d: Pick<DeliveryLine, 'attempts_in_round' | 'max_attempts'>): string {
  return `${d.attempts_in_round}/${d.max_attempts} attempts`;
}

function cliActor(): string {
  return `${safeUser()}@${hostname()} (cli)`;
}

interface DeliveryLine {
  id: string;
  ingest_job_id: string;
  status: string;
  attempts: number;
  attempts_in_round: number;
  max_attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string;
  callback_url: string;
}

export function formatDeliveries(items: readonly DeliveryLine[], total: number): string {
  if (items.length === 0) return 'no deliveries match';
  const rows = [
    ['ID', 'JOB', 'STATUS', 'TRIES', 'LAST', 'NEXT', 'URL'],
    ...items.map((d) => [d.id, d.ingest_job_id, d.status, `${d.attempts_in_round}/${d.max_attempts}`, d.last_status_code === null ? (d.last_error ? 'error' : '-') : String(d.last_status_code), d.status === 'PENDING' ? d.next_attempt_at : '-', d.callback_url]),
  ];
  const table = formatTable(rows);
  return total > items.length ? `${table}\n(${items.length} of ${total}; narrow with --status/--job or raise --limit)` : table;
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
