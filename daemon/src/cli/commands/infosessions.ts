import { readFile, writeFile } from 'node:fs/promises';
import { UsageError } from '../../core/errors.js';
import { formatSessions, importLegacy, LegacyImportError } from '../../infosessions/legacy-import.js';
import { parseCommandArgs } from '../parse.js';

const HELP = `Usage: portico infosessions <command>

Commands:
  import FILE...       convert legacy uWaterloo EmployerInfoSessions CSV files to our layout

Options:
  -h, --help      show this help`;

const IMPORT_HELP = `Usage: portico infosessions import [-o OUT] FILE...

Converts legacy EmployerInfoSessions CSV files (12-hour times, long dates, \`location\` such as
"TC 2218", backslash-escaped quotes, CRLF, UTF-8 or Windows-1252) into the layout of
config/data/infosessions.csv (docs/infosessions.md). Every record is written; what could not
be mapped is reported on standard error as FILE:LINE: reason. Works offline.

Options:
  -o, --output OUT   write the CSV to OUT (default: standard output)
  -h, --help         show this help

Exit status: 0 when every file was imported, 1 when a file could not be read at all.`;

/** `portico infosessions ...`; returns the exit code. */
export async function infosessionsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '-h' || sub === '--help') {
    (sub === undefined ? console.error : console.log)(HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'import') return importCommand(rest);
  throw new UsageError(`unknown command 'infosessions ${sub}'`, HELP);
}

async function importCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { output: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } }, IMPORT_HELP, true);
  if (values.help) {
    console.log(IMPORT_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError("'infosessions import' needs at least one FILE", IMPORT_HELP);
  const rows: string[][] = [];
  const seen = new Map<string, string>();
  let failed = false;
  for (const file of positionals) {
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (error) {
      console.error(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error)}`);
      failed = true;
      continue;
    }
    try {
      const imported = importLegacy(bytes);
      for (const note of imported.notes) console.error(`${file}:${note.line}: ${note.reason}`);
      for (const row of imported.rows) {
        const id = row[0] ?? '';
        const first = seen.get(id);
        if (id !== '' && first) console.error(`${file}: id ${id} was already imported from ${first}; both are written, the loader keeps the first`);
        else if (id !== '') seen.set(id, file);
        rows.push(row);
      }
      const encoding = imported.encoding === 'windows-1252' ? ', decoded as Windows-1252 (not valid UTF-8)' : '';
      console.error(`${file}: ${imported.rows.length} records, ${imported.notes.length} notes${encoding}`);
    } catch (error) {
      if (!(error instanceof LegacyImportError)) throw error;
      console.error(`${file}: cannot import: ${error.message}`);
      failed = true;
    }
  }
  const csv = formatSessions(rows);
  if (values.output) {
    await writeFile(values.output, csv, 'utf8');
    console.error(`wrote ${rows.length} records to ${values.output}`);
  } else {
    process.stdout.write(csv);
  }
  return failed ? 1 : 0;
}
