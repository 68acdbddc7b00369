import { tolerateClosedOutput } from '../core/closed-output.js';
import { UsageError } from '../core/errors.js';
import { VERSION } from '../core/version.js';
import { runConfigCommand } from './commands/config.js';
import { daemonCommand } from './commands/daemon.js';
import { infosessionsCommand } from './commands/infosessions.js';
import { keysCommand } from './commands/keys.js';
import { deliveriesCommand } from './commands/deliveries.js';
import { tokenCommand } from './commands/token.js';
import { tuiCommand } from './commands/tui.js';
import { verifySignatureCommand } from './commands/verify-signature.js';

const HELP = `Usage: portico <command> [options]

Commands:
  daemon          run the daemon (gateway, discovery, services, workers, control API)
  tui             terminal console for a running daemon
  keys            API keys of the infosessions service (create, list, ban, unban, revoke)
  token           bearer tokens for the gateway (create --tenant T --workspace W)
  infosessions    infosessions tools (import FILE...: convert legacy CSV files)
  deliveries      webhook callback deliveries of the ingest service (list, reset DEAD ones)
  verify-signature  check a received callback's signatures (for receivers)
  config          check configuration files and evaluate expressions (config check FILE..., config eval [EXPR])

Options:
  -h, --help      show help (also: portico <command> --help)
  -v, --version   print the version

Docs: README.md and docs/ in the Portico checkout.`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  daemon: daemonCommand,
  tui: tuiCommand,
  deliveries: deliveriesCommand,
  'verify-signature': verifySignatureCommand,
  config: runConfigCommand,
  keys: keysCommand,
  token: tokenCommand,
  infosessions: infosessionsCommand,
};

/** Runs the CLI; resolves with the exit code (2 for usage errors). */
export async function main(argv: string[]): Promise<number> {
  tolerateClosedOutput();
  const [command, ...rest] = argv;
  try {
    if (command === undefined) {
      console.error(HELP);
      return 2;
    }
    if (command === '-h' || command === '--help' || command === 'help') {
      console.log(HELP);
      return 0;
    }
    if (command === '-v' || command === '--version') {
      console.log(VERSION);
      return 0;
    }
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!run) throw new UsageError(command.startsWith('-') ? `unknown option '${command}'` : `unknown command '${command}'`, HELP);
    return await run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`portico: ${error.message}\n`);
      if (error.usage) console.error(error.usage);
      return 2;
    }
    console.error(`portico: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}
