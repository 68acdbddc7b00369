/** CSV (RFC 4180) to a typed table: the parsing the PARSE_AND_INGEST and REPARSE jobs do. */

export type ColumnType = 'integer' | 'number' | 'boolean' | 'date' | 'timestamp' | 'text';

export interface Column {
  name: string;
  type: ColumnType;
  nullable: boolean;
}

export type Cell = string | number | boolean | null;

export interface ParsedTable {
  columns: Column[];
  rows: Cell[][];
}

export class CsvError extends Error {
  override name = 'CsvError';
  readonly code = 'bad_csv';
}

/** Records of an RFC 4180 text (quotes, doubled quotes, CRLF or LF, embedded newlines). */
export function parseCsvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  let line = 1;
  let quoted = false;
  let fieldStarted = false;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i += 1;
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') throw new CsvError(`line ${line}: text after a closing quote`);
        continue;
      }
      if (ch === '\n') line += 1;
      field += ch;
      i += 1;
      continue;
    }
    if (ch === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
      i += 1;
    } else if (ch === ',') {
      record.push(field);
      field = '';
      fieldStarted = false;
      i += 1;
    } else if (ch === '\r' || ch === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      fieldStarted = false;
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line += 1;
    } else {
      field += ch;
      fieldStarted = true;
      i += 1;
    }
  }
  if (quoted) throw new CsvError(`line ${line}: a quoted field is not closed`);
  if (fieldStarted || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records.filter((r) => !(r.length === 1 && r[0] === ''));
}

const INTEGER = /^[+-]?\d{1,15}$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const BOOLEAN = /^(true|false)$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** The narrowest type every non-empty value fits; an empty cell is null. */
export function inferType(values: readonly string[]): ColumnType {
  const present = values.filter((v) => v !== '');
  if (present.length === 0) return 'text';
  const all = (re: RegExp, check: (v: string) => boolean = () => true) => present.every((v) => re.test(v) && check(v));
  if (all(INTEGER)) return 'integer';
  if (all(NUMBER)) return 'number';
  if (all(BOOLEAN)) return 'boolean';
  if (all(DATE, (v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)))) return 'date';
  if (all(TIMESTAMP, (v) => !Number.isNaN(Date.parse(v)))) return 'timestamp';
  return 'text';
}

function convert(value: string, type: ColumnType): Cell {
  if (value === '') return null;
  if (type === 'integer' || type === 'number') return Number(value);
  if (type === 'boolean') return value.toLowerCase() === 'true';
  return value;
}

/** Decodes, parses and types a CSV file; a bad file throws a CsvError saying what and where. */
export function parseCsvTable(content: Uint8Array): ParsedTable {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    throw new CsvError('the file is not UTF-8 text');
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.includes('\0')) throw new CsvError('the file contains NUL bytes; it is not a CSV text file');
  const records = parseCsvRecords(text);
  const header = records[0];
  if (!header) throw new CsvError('the file is empty: a header row is required');
  const names = header.map((h) => h.trim());
  names.forEach((name, i) => {
    if (name === '') throw new CsvError(`header column ${i + 1} has no name`);
    if (names.indexOf(name) !== i) throw new CsvError(`header column ${i + 1} repeats the name '${name}'`);
  });
  const body = records.slice(1);
  body.forEach((record, i) => {
    if (record.length !== names.length) throw new CsvError(`row ${i + 2} has ${record.length} fields; the header has ${names.length}`);
  });
  const columns: Column[] = names.map((name, c) => {
    const values = body.map((r) => r[c]!);
    return { name, type: inferType(values), nullable: values.some((v) => v === '') };
  });
  return { columns, rows: body.map((r) => r.map((v, c) => convert(v, columns[c]!.type))) };
}
