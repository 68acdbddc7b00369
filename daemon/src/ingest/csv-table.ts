/** CSV (RFC 4180) to a typed table: the parsing the PARSE_AND_INGEST and REPARSE jobs do. */
import { CsvSyntaxError, parseCsv, type CsvRow } from '../core/csv.js';
import { PorticoError } from '../core/errors.js';

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

/** The uploaded file is not a CSV table this job can store; the message says what and where. */
export class CsvError extends PorticoError {
  override name = 'CsvError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('bad_csv', message, options);
  }
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
  if (text.includes('\0')) throw new CsvError('the file contains NUL bytes; it is not a CSV text file');
  const [header, ...body] = records(text);
  if (!header) throw new CsvError('the file is empty: a header row is required');
  const names = header.fields.map((h) => h.trim());
  names.forEach((name, i) => {
    if (name === '') throw new CsvError(`line ${header.line}: header column ${i + 1} has no name`);
    if (names.indexOf(name) !== i) throw new CsvError(`line ${header.line}: header column ${i + 1} repeats the name '${name}'`);
  });
  // The record's own line: blank lines are skipped and a quoted field can span lines.
  for (const record of body) {
    if (record.fields.length !== names.length) throw new CsvError(`line ${record.line} has ${record.fields.length} fields; the header has ${names.length}`);
  }
  const columns: Column[] = names.map((name, c) => {
    const values = body.map((r) => r.fields[c]!);
    return { name, type: inferType(values), nullable: values.some((v) => v === '') };
  });
  return { columns, rows: body.map((r) => r.fields.map((v, c) => convert(v, columns[c]!.type))) };
}

/** The shared parser's records; its syntax errors (with line and column) become this job's CsvError. */
function records(text: string): CsvRow[] {
  try {
    return parseCsv(text);
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw new CsvError(error.message, { cause: error });
    throw error;
  }
}
