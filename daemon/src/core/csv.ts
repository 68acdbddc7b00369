/**
 * The one CSV reader and writer (RFC 4180), shared by the infosessions source, its legacy
 * importer and the ingest jobs that parse uploaded tables.
 */
import { PorticoError } from './errors.js';

/** One parsed CSV record and the 1-based line it starts on (embedded newlines push later lines down). */
export interface CsvRow {
  line: number;
  fields: string[];
}

/** The text cannot be read as CSV at all (e.g. a quote never closed); says where, 1-based. */
export class CsvSyntaxError extends PorticoError {
  override name = 'CsvSyntaxError';
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super('csv_syntax', `line ${line}, column ${column}: ${reason}`);
  }
}

export interface CsvParseOptions {
  /**
   * Legacy exports wrote `\'` and `\"` inside fields; when true a backslash escapes the next
   * character instead of being data. RFC 4180 has no escapes, so this is off by default.
   */
  backslashEscapes?: boolean;
}

/**
 * RFC 4180: fields separated by commas, records by CRLF or LF (a lone CR counts too), a field
 * in double quotes may hold commas, line breaks and `""` for a quote. A byte-order mark is
 * skipped and blank lines are no records. A quote inside an unquoted field is kept as data
 * (lenient, as spreadsheets do); text after a closing quote is an error.
 */
export function parseCsv(text: string, { backslashEscapes = false }: CsvParseOptions = {}): CsvRow[] {
  const rows: CsvRow[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let rowLine = 1;
  // A byte-order mark is not data.
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let lineStart = i;
  const n = text.length;
  let atFieldStart = true;
  // Columns count characters (code points) from the start of the physical line; counted only
  // when an error is thrown, since counting per field would make a long line quadratic.
  const columnAt = (from: number, index: number): number => Array.from(text.slice(from, index)).length + 1;

  const endRow = (): void => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === '')) rows.push({ line: rowLine, fields });
    fields = [];
    field = '';
    atFieldStart = true;
  };

  while (i < n) {
    const ch = text[i]!;
    if (atFieldStart && ch === '"') {
      // Quoted field: runs to the closing quote.
      const openedOn = line;
      const openedLineStart = lineStart;
      const openedIndex = i;
      i += 1;
      for (;;) {
        if (i >= n) throw new CsvSyntaxError(openedOn, columnAt(openedLineStart, openedIndex), 'a quoted field is never closed (missing ")');
        const c = text[i]!;
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        if (backslashEscapes && c === '\\' && i + 1 < n && (text[i + 1] === '"' || text[i + 1] === "'" || text[i + 1] === '\\')) {
          field += text[i + 1];
          i += 2;
          continue;
        }
        if (c === '\r' || c === '\n') {
          const width = c === '\r' && text[i + 1] === '\n' ? 2 : 1;
          field += text.slice(i, i + width);
          i += width;
          line += 1;
          lineStart = i;
          continue;
        }
        field += c;
        i += 1;
      }
      const next = text[i];
      if (next !== undefined && next !== ',' && next !== '\r' && next !== '\n') {
        throw new CsvSyntaxError(line, columnAt(lineStart, i), `unexpected ${JSON.stringify(next)} after a closing quote (a quote inside a quoted field is written "")`);
      }
      atFieldStart = false;
      continue;
    }
    atFieldStart = false;
    if (ch === ',') {
      fields.push(field);
      field = '';
      atFieldStart = true;
      i += 1;
      continue;
    }
    if (ch === '\r' || ch === '\n') {
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
      endRow();
      line += 1;
      rowLine = line;
      lineStart = i;
      continue;
    }
    if (backslashEscapes && ch === '\\' && (text[i + 1] === "'" || text[i + 1] === '"')) {
      field += text[i + 1];
      i += 2;
      continue;
    }
    field += ch;
    i += 1;
  }
  if (!atFieldStart || field !== '' || fields.length > 0) endRow();
  return rows;
}

/** One field as CSV: quoted when it holds a comma, quote, line break or edge spaces. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Rows as CSV text with CRLF line ends (RFC 4180). */
export function formatCsv(rows: readonly (readonly string[])[]): string {
  return rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}
