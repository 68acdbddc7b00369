/**
 * The parser `core/csv.ts` had before it read pieces (a whole text, one character at a time):
 * kept as the oracle the piece-by-piece reader is compared with in `csv.test.ts`.
 */
import { CsvSyntaxError, type CsvParseOptions, type CsvRow } from '../csv.js';

export function referenceParseCsv(text: string, { backslashEscapes = false }: CsvParseOptions = {}): CsvRow[] {
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
