import { tolerateClosedOutput } from '../core/closed-output.js';
import { UsageError } from '../core/errors.js';
import { VERSION } from '../core/version.js';

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

type Command = (argv: string[]) => Promise<number>;

/**
 * Each command's module, loaded when it runs: loading them all (the daemon, the HCL parser,
 * jose...) took 1.7 s of a slow machine before `portico --help` or `portico tui` could answer,
 * against 0.16 s for the CLI alone.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  daemon: async () => (await import('./commands/daemon.js')).daemonCommand,
  tui: async () => (await import('./commands/tui.js')).tuiCommand,
  deliveries: async () => (await import('./commands/deliveries.js')).deliveriesCommand,
  'verify-signature': async () => (await import('./commands/verify-signature.js')).verifySignatureCommand,
  config: async () => (await import('./commands/config.js')).runConfigCommand,
  keys: async () => (await import('./commands/keys.js')).keysCommand,
  token: async () => (await import('./commands/token.js')).tokenCommand,
  infosessions: async () => (await import('./commands/infosessions.js')).infosessionsCommand,
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
    const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!load) throw new UsageError(command.startsWith('-') ? `unknown option '${command}'` : `unknown command '${command}'`, HELP);
    const run = await load();
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
