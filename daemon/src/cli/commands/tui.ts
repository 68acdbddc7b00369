import { TOKEN_FILE_NAME } from '../../control/auth.js';
import { DEFAULT_CONTROL_ADDR } from '../../core/settings.js';
import { controlUrlFromEnv, readToken } from '../control-client.js';
import { parseCommandArgs } from '../parse.js';

export { readToken } from '../control-client.js';

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
