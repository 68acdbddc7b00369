import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_CONTROL_ADDR, parseListenAddress } from '../../core/settings.js';
import { TOKEN_FILE_NAME } from '../../control/auth.js';
import { parseCommandArgs } from '../parse.js';

export const TUI_HELP = `Usage: portico tui [--url URL] [--token-file FILE] [--data-dir DIR] [--json]

Opens the terminal console on a running daemon. Without a terminal (piped), prints the
status once and exits.

Options:
      --url URL          control API (default http://<PORTICO_CONTROL_ADDR or ${DEFAULT_CONTROL_ADDR}>)
      --token-file FILE  file holding the control token (default <data dir>/${TOKEN_FILE_NAME});
                         PORTICO_CONTROL_TOKEN wins when set
      --data-dir DIR     data directory (default PORTICO_DATA_DIR or ./data)
      --json             print the status once as JSON and exit
  -h, --help             show this help`;

interface TuiModule {
  runTui(opts: { url: string; token: string; json?: boolean }): Promise<number>;
}

// Loaded by name at run time: the console depends on the daemon's types, not the reverse.
const TUI_PACKAGE = '@portico/console-tui';

export async function tuiCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    {
      url: { type: 'string' },
      'token-file': { type: 'string' },
      'data-dir': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    TUI_HELP,
  );
  if (values.help) {
    console.log(TUI_HELP);
    return 0;
  }
  let url: string;
  let token: string;
  try {
    url = values.url ?? controlUrlFromEnv();
    token = readToken(values['token-file'], values['data-dir']);
  } catch (error) {
    console.error(`portico tui: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const tui = (await import(TUI_PACKAGE)) as TuiModule;
  return tui.runTui({ url, token, json: values.json ?? false });
}

function controlUrlFromEnv(): string {
  const addr = parseListenAddress(process.env.PORTICO_CONTROL_ADDR || DEFAULT_CONTROL_ADDR, 'PORTICO_CONTROL_ADDR');
  const host = addr.host === '0.0.0.0' ? '127.0.0.1' : addr.host === '::' ? '::1' : addr.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
}

/** PORTICO_CONTROL_TOKEN, else the token file; the error says where it looked. */
export function readToken(tokenFile: string | undefined, dataDir: string | undefined): string {
  const fromEnv = process.env.PORTICO_CONTROL_TOKEN?.trim();
  if (fromEnv && !tokenFile) return fromEnv;
  const file = resolve(tokenFile ?? join(dataDir ?? process.env.PORTICO_DATA_DIR ?? 'data', TOKEN_FILE_NAME));
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'not found' : code === 'EACCES' ? 'permission denied' : String(error);
    throw new Error(`cannot read the control token from ${file}: ${why}. Start the daemon once (it creates the file), or pass --token-file / --data-dir, or set PORTICO_CONTROL_TOKEN.`);
  }
  if (!token) throw new Error(`the token file ${file} is empty`);
  return token;
}
