/**
 * CSV (RFC 4180) to a typed table, a piece at a time: the parsing the PARSE_AND_INGEST and
 * REPARSE jobs do. A file is read twice and never held whole: `scanCsvTable` checks it and works
 * out each column's type, `readCsvTable` then hands over its typed rows in parts.
 */
import { CsvReader, CsvSyntaxError, type CsvRow } from '../core/csv.js';
import { PorticoError } from '../core/errors.js';

export type ColumnType = 'integer' | 'number' | 'boolean' | 'date' | 'timestamp' | 'text';

export interface Column {
  name: string;
  type: ColumnType;
  nullable: boolean;
}

export type Cell = string | number | boolean | null;

/** What the first read of a file found: its columns, typed, and how many rows it has. */
export interface TableShape {
  columns: Column[];
  rowCount: number;
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

/** The types a column can have, narrowest first, and what a value must be to fit each. */
const CANDIDATES: ReadonlyArray<readonly [ColumnType, (value: string) => boolean]> = [
  ['integer', (v) => INTEGER.test(v)],
  ['number', (v) => NUMBER.test(v)],
  ['boolean', (v) => BOOLEAN.test(v)],
  ['date', (v) => DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))],
  ['timestamp', (v) => TIMESTAMP.test(v) && !Number.isNaN(Date.parse(v))],
];
const EVERY_CANDIDATE = (1 << CANDIDATES.length) - 1;

/** One column's type, value by value: the narrowest type every non-empty value fits (text if none). */
class ColumnTyping {
  #fits = EVERY_CANDIDATE;
  #present = false;
  nullable = false;

  add(value: string): void {
    if (value === '') {
      this.nullable = true;
      return;
    }
    this.#present = true;
    for (let k = 0; k < CANDIDATES.length; k++) if (this.#fits & (1 << k) && !CANDIDATES[k]![1](value)) this.#fits &= ~(1 << k);
  }

  type(): ColumnType {
    if (!this.#present) return 'text';
    for (let k = 0; k < CANDIDATES.length; k++) if (this.#fits & (1 << k)) return CANDIDATES[k]![0];
    return 'text';
  }
}

/** The narrowest type every non-empty value fits; an empty cell is null. */
export function inferType(values: readonly string[]): ColumnType {
  const typing = new ColumnTyping();
  for (const value of values) typing.add(value);
  return typing.type();
}

function convert(value: string, type: ColumnType): Cell {
  if (value === '') return null;
  if (type === 'integer' || type === 'number') return Number(value);
  if (type === 'boolean') return value.toLowerCase() === 'true';
  return value;
}

/**
 * A CSV file's bytes, piece by piece, to its records after the header: refused (a CsvError
 * saying what and where) when it is not UTF-8, holds NUL bytes, has no header, a header column
 * without a name or twice, or a record not as wide as the header.
 */
class TableRecords {
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  readonly #reader = new CsvReader();
  #names: string[] | null = null;
  #bytes = 0;

  /** The header's names, once a record has been read. */
  get names(): string[] | null {
    return this.#names;
  }

  push(bytes: Uint8Array): string[][] {
    const from = this.#bytes;
    this.#bytes += bytes.length;
    return this.#records(() => this.#decoder.decode(bytes, { stream: true }), from);
  }

  end(): string[][] {
    const body = this.#records(() => this.#decoder.decode(), this.#bytes, true);
    if (!this.#names) throw new CsvError('the file is empty: a header row is required');
    return body;
  }

  #records(decode: () => string, from: number, last = false): string[][] {
    let text: string;
    try {
      text = decode();
    } catch {
      throw new CsvError(`the file is not UTF-8 text (a byte sequence that is not UTF-8 ${last ? 'at its end' : `within bytes ${from + 1} to ${this.#bytes}`})`);
    }
    if (text.includes('\0')) throw new CsvError('the file contains NUL bytes; it is not a CSV text file');
    const body: string[][] = [];
    this.#check(() => this.#reader.push(text), body);
    if (last) this.#check(() => this.#reader.end(), body);
    return body;
  }

  /** Checks the records `read` gives (the header first) and adds those after the header to `body`. */
  #check(read: () => CsvRow[], body: string[][]): void {
    let records: CsvRow[];
    try {
      records = read();
    } catch (error) {
      if (error instanceof CsvSyntaxError) throw new CsvError(error.message, { cause: error });
      throw error;
    }
    for (const record of records) {
      if (!this.#names) {
        const names = record.fields.map((h) => h.trim());
        names.forEach((name, i) => {
          if (name === '') throw new CsvError(`line ${record.line}: header column ${i + 1} has no name`);
          if (names.indexOf(name) !== i) throw new CsvError(`line ${record.line}: header column ${i + 1} repeats the name '${name}'`);
        });
        this.#names = names;
        continue;
      }
      // The record's own line: blank lines are skipped and a quoted field can span lines.
      if (record.fields.length !== this.#names.length) throw new CsvError(`line ${record.line} has ${record.fields.length} fields; the header has ${this.#names.length}`);
      body.push(record.fields);
    }
  }
}

/** The first read: checks the whole file and types its columns, holding one piece and one record at a time. */
export async function scanCsvTable(pieces: AsyncIterable<Uint8Array>): Promise<TableShape> {
  const records = new TableRecords();
  let typings: ColumnTyping[] = [];
  let rowCount = 0;
  const add = (body: string[][]) => {
    if (typings.length === 0 && records.names) typings = records.names.map(() => new ColumnTyping());
    for (const fields of body) for (let c = 0; c < fields.length; c++) typings[c]!.add(fields[c]!);
    rowCount += body.length;
  };
  for await (const piece of pieces) add(records.push(piece));
  add(records.end());
  const columns = records.names!.map((name, c) => ({ name, type: typings[c]!.type(), nullable: typings[c]!.nullable }));
  return { columns, rowCount };
}

/** Where a part of rows ends: this many rows, or about this many characters of cells. */
export interface PartLimits {
  rows: number;
  chars: number;
}

export const PART_LIMITS: PartLimits = { rows: 10_000, chars: 1024 * 1024 };

/**
 * The second read: the file's rows, typed as `shape` says, handed to `onPart` a part at a time
 * (awaited before more is read). Refuses a file that is no longer the one `shape` was made from.
 */
export async function readCsvTable(pieces: AsyncIterable<Uint8Array>, shape: TableShape, onPart: (rows: Cell[][]) => Promise<void>, limits: PartLimits = PART_LIMITS): Promise<void> {
  const records = new TableRecords();
  const types = shape.columns.map((c) => c.type);
  let part: Cell[][] = [];
  let chars = 0;
  let rowCount = 0;
  const take = async (body: string[][]) => {
    for (const fields of body) {
      const row: Cell[] = new Array(fields.length);
      for (let c = 0; c < fields.length; c++) {
        row[c] = convert(fields[c]!, types[c]!);
        chars += fields[c]!.length + 3;
      }
      part.push(row);
      if (part.length >= limits.rows || chars >= limits.chars) {
        const full = part;
        part = [];
        chars = 0;
        await onPart(full);
      }
    }
    rowCount += body.length;
  };
  for await (const piece of pieces) await take(records.push(piece));
  await take(records.end());
  if (part.length > 0) await onPart(part);
  const names = records.names!;
  if (rowCount !== shape.rowCount || names.length !== shape.columns.length || names.some((name, c) => name !== shape.columns[c]!.name)) {
    throw new CsvError('the file changed between its two reads; upload it again');
  }
}
