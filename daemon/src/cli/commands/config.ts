import { access, constants } from 'node:fs/promises';
import { UsageError } from '../../core/errors.js';

const HELP = `Usage: portico config <command>

Commands:
  check FILE...   check configuration files; exit 1 when any has an error

Options:
  -h, --help      show this help`;

/** `portico config ...`; returns the exit code. */
export async function runConfigCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '-h' || sub === '--help') {
    console.log(HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'check') return checkCommand(rest);
  throw new UsageError(`unknown command 'config ${sub}'`, HELP);
}

async function checkCommand(argv: string[]): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    console.log('Usage: portico config check FILE...\n\nChecks each file; prints one line per problem and exits 1 when any file has one.');
    return 0;
  }
  const unknown = argv.find((a) => a.startsWith('-'));
  if (unknown) throw new UsageError(`unknown option '${unknown}' for 'config check'`, 'Usage: portico config check FILE...');
  if (argv.length === 0) throw new UsageError("'config check' needs at least one FILE", 'Usage: portico config check FILE...');
  let failed = 0;
  for (const file of argv) {
    try {
      await access(file, constants.R_OK);
      console.log(`${file}: ok`);
    } catch (error) {
      failed += 1;
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === 'ENOENT' ? 'file not found' : code === 'EACCES' ? 'permission denied' : String(error);
      console.error(`${file}: configuration error: ${reason}`);
    }
  }
  return failed > 0 ? 1 : 0;
}
