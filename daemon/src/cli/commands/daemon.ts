import { DAEMON_MODES, type DaemonMode } from '../../control/client-types.js';
import { UsageError } from '../../core/errors.js';
import { readPorticoSettings } from '../../main/settings.js';
import { parseCommandArgs } from '../parse.js';

export const DAEMON_HELP = `Usage: portico daemon [-f FILE]... [-d DIR] [--mode MODE] [--data-dir DIR]

Runs the Portico daemon until SIGINT or SIGTERM.

Options:
  -f, --file FILE     configuration file (repeatable; default PORTICO_CONFIG or config/portico.hcl)
  -d, --dir DIR       load every *.hcl file in DIR, merged in name order (repeatable)
      --mode MODE     which roles this process runs: ${DAEMON_MODES.join(' | ')} (default all)
      --data-dir DIR  data directory: SQLite file, control token (default PORTICO_DATA_DIR or ./data)
  -h, --help          show this help

Environment:
  PORTICO_DATA_DIR, PORTICO_DATABASE_URL (postgres://...; unset = SQLite in the data dir),
  PORTICO_CONTROL_ADDR (127.0.0.1:9901), PORTICO_CONTROL_TOKEN, PORTICO_SHUTDOWN_DELAY (0s),
  PORTICO_SHUTDOWN_TIMEOUT (5s), PORTICO_LOG_FORMAT (common | json), PORTICO_LOG_LEVEL (info),
  PORTICO_GATEWAY_PROCESSES (1 | N | auto: processes serving the gateway's ports); the rest in
  docs/operating.md, "Environment"`;

export async function daemonCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    {
      file: { type: 'string', short: 'f', multiple: true },
      dir: { type: 'string', short: 'd', multiple: true },
      mode: { type: 'string', default: 'all' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    DAEMON_HELP,
  );
  if (values.help) {
    console.log(DAEMON_HELP);
    return 0;
  }
  const mode = values.mode as string;
  if (!(DAEMON_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`unknown mode '${mode}'; choose one of ${DAEMON_MODES.join(', ')}`, DAEMON_HELP);
  }
  let settings;
  try {
    settings = readPorticoSettings(process.env, { dataDir: values['data-dir'] });
  } catch (error) {
    console.error(`portico daemon: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  // Loaded here, not with the command: `portico daemon --help` and a bad argument answer without it.
  const { runDaemon } = await import('../../main/daemon.js');
  return runDaemon({ mode: mode as DaemonMode, settings, configFiles: values.file ?? [], configDirs: values.dir ?? [] });
}
