import { UsageError } from '../../core/errors.js';
import { DEFAULT_CONTROL_ADDR } from '../../core/settings.js';
import type { ApiKeySummary } from '../../infosessions/control-types.js';
import { connectControl, describeCallError, formatTable } from '../control-client.js';
import { parseCommandArgs } from '../parse.js';

const CONNECTION = `      --url URL          control API (default http://<PORTICO_CONTROL_ADDR or ${DEFAULT_CONTROL_ADDR}>)
      --token-file FILE  file holding the control token (default <data dir>/control.token)
      --data-dir DIR     data directory (default PORTICO_DATA_DIR or ./data)`;

const HELP = `Usage: portico keys <command> [options]

API keys of the infosessions service, managed on the running daemon.

Commands:
  create --name NAME [--limit N]   create a key; prints it once, alone on the last line
  list [--json]                    keys with their state, calls this month and last use
  ban ID                           refuse the key with 403 (unban ID lifts it)
  unban ID                         make a banned key active again
  revoke ID                        refuse the key for good with 401

Options:
${CONNECTION}
  -h, --help         show this help`;

const OPTIONS = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  'data-dir': { type: 'string' },
  name: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `portico keys ...`; returns the exit code. */
export async function keysCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '-h' || sub === '--help') {
    (sub === undefined ? console.error : console.log)(HELP);
    return sub === undefined ? 2 : 0;
  }
  if (!['create', 'list', 'ban', 'unban', 'revoke'].includes(sub)) throw new UsageError(`unknown command 'keys ${sub}'`, HELP);
  const { values, positionals } = parseCommandArgs(rest, OPTIONS, HELP, true);
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (sub === 'create' && !values.name?.trim()) throw new UsageError("'keys create' needs --name NAME", HELP);
  const limit = values.limit === undefined ? null : Number(values.limit);
  if (limit !== null && !(Number.isInteger(limit) && limit >= 0)) throw new UsageError(`--limit must be a whole number of calls per month, not '${values.limit}'`, HELP);
  const needsId = sub === 'ban' || sub === 'unban' || sub === 'revoke';
  if (needsId && positionals.length !== 1) throw new UsageError(`'keys ${sub}' needs exactly one key ID (see portico keys list)`, HELP);
  if (!needsId && positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, HELP);

  let connection: ReturnType<typeof connectControl>;
  try {
    connection = connectControl({ url: values.url, tokenFile: values['token-file'], dataDir: values['data-dir'] });
  } catch (error) {
    console.error(`portico keys: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const { client, url } = connection;
  try {
    if (sub === 'create') {
      const created = await client.keys.create.mutate({ name: values.name!.trim(), monthlyLimit: limit });
      console.log(`created ${created.key.id} (${created.key.name}); this is the only time the key is shown:`);
      console.log(created.secret);
      return 0;
    }
    if (sub === 'list') {
      const keys = await client.keys.list.query();
      console.log(values.json ? JSON.stringify(keys, null, 2) : formatKeys(keys));
      return 0;
    }
    const id = positionals[0]!;
    const key = sub === 'ban' ? await client.keys.ban.mutate({ id }) : sub === 'unban' ? await client.keys.unban.mutate({ id }) : await client.keys.revoke.mutate({ id });
    console.log(`${key.id} (${key.name}) is ${key.state}`);
    return 0;
  } catch (error) {
    console.error(`portico keys ${sub}: ${describeCallError(error, url)}`);
    return 1;
  }
}

export function formatKeys(keys: readonly ApiKeySummary[]): string {
  if (keys.length === 0) return 'no API keys yet; create one with: portico keys create --name NAME';
  const rows = [
    ['ID', 'NAME', 'KEY', 'STATE', 'THIS MONTH', 'LIMIT', 'LAST USED'],
    ...keys.map((k) => [k.id, k.name, k.masked, k.state, String(k.requestsThisMonth), k.monthlyLimit === null ? '-' : String(k.monthlyLimit), k.lastUsedAt ?? 'never']),
  ];
  return formatTable(rows);
}
