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
export function parseCsv(text: string, options: CsvParseOptions = {}): CsvRow[] {
  const reader = new CsvReader(options);
  const rows = reader.push(text);
  for (const row of reader.end()) rows.push(row);
  return rows;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Code points (what an editor counts as columns) in `text` from `from` to `to`. */
function codePoints(text: string, from: number, to: number): number {
  let count = to - from;
  for (let i = from + 1; i < to; i++) if (isLowSurrogate(text.charCodeAt(i)) && isHighSurrogate(text.charCodeAt(i - 1))) count -= 1;
  return count;
}

/**
 * `parseCsv` a piece at a time, for files that are not held whole: `push` each piece of text as
 * it is decoded (a piece may end anywhere, inside a quoted field or between CR and LF, but not
 * inside a surrogate pair: a streaming `TextDecoder` never splits one), then `end`. Each call
 * returns the records it completed; errors are the same, with the same lines and columns.
 * Holds one unfinished record (and at most two characters of lookahead) between pieces.
 */
export class CsvReader {
  readonly #escapes: boolean;
  #fields: string[] = [];
  #field = '';
  #atFieldStart = true;
  #inQuotes = false;
  /** A quoted field just closed: the next character must end the field or the record. */
  #afterQuote = false;
  #line = 1;
  #rowLine = 1;
  /** Code points of the current physical line in earlier pieces. */
  #lineColumns = 0;
  /** Where the open quoted field's quote is: its line, and its column once its piece is gone. */
  #quoteLine = 0;
  #quoteColumn = 0;
  /** Characters held back until the next piece shows what follows them. */
  #carry = '';
  #started = false;
  #ended = false;
  /** A syntax error found in a piece: thrown by the next call, after the records before it are returned. */
  #error: CsvSyntaxError | null = null;

  constructor({ backslashEscapes = false }: CsvParseOptions = {}) {
    this.#escapes = backslashEscapes;
  }

  /**
   * The records this piece completed. A syntax error is thrown once the records before it have
   * been returned (by this call when there are none, else by the next), so errors come in the
   * order of the text whatever its pieces.
   */
  push(text: string): CsvRow[] {
    if (this.#error) throw this.#error;
    if (this.#ended) throw new Error('CsvReader: push after end');
    return this.#parse(this.#carry === '' ? text : this.#carry + text, false);
  }

  /** The last record, if the text did not end with a line break; throws if a quoted field is still open. */
  end(): CsvRow[] {
    if (this.#error) throw this.#error;
    if (this.#ended) return [];
    const rows = this.#parse(this.#carry, true);
    this.#ended = true;
    return rows;
  }

  #parse(text: string, final: boolean): CsvRow[] {
    const rows: CsvRow[] = [];
    try {
      this.#scan(text, final, rows);
    } catch (error) {
      if (!(error instanceof CsvSyntaxError)) throw error;
      this.#error = error;
      if (rows.length === 0) throw error;
    }
    return rows;
  }

  #scan(text: string, final: boolean, rows: CsvRow[]): void {
    const escapes = this.#escapes;
    const n = text.length;
    let i = 0;
    if (!this.#started && n > 0) {
      this.#started = true;
      // A byte-order mark is not data.
      if (text.charCodeAt(0) === 0xfeff) i = 1;
    }
    let fields = this.#fields;
    let field = this.#field;
    let atFieldStart = this.#atFieldStart;
    let inQuotes = this.#inQuotes;
    let afterQuote = this.#afterQuote;
    let line = this.#line;
    let rowLine = this.#rowLine;
    // The current physical line starts at `lineStart` of this piece, after `lineColumns` code points of earlier ones.
    let lineStart = i;
    let lineColumns = this.#lineColumns;
    // The open quote, when it is in this piece: its index and its line's start and earlier columns.
    let quoteIndex = -1;
    let quoteLineStart = 0;
    let quoteLineColumns = 0;
    // Columns count code points from the start of the physical line; counted only when an error is
    // thrown or a piece ends inside a line, since counting per field would make a long line quadratic.
    const columnAt = (index: number) => lineColumns + codePoints(text, lineStart, index) + 1;
    const endRow = (): void => {
      fields.push(field);
      if (!(fields.length === 1 && fields[0] === '')) rows.push({ line: rowLine, fields });
      fields = [];
      field = '';
      atFieldStart = true;
    };
    const newLine = (at: number): void => {
      line += 1;
      lineStart = at;
      lineColumns = 0;
    };

    let stop = n;
    scan: while (i < n) {
      const ch = text.charCodeAt(i);
      if (inQuotes) {
        // Up to the next character that means something inside quotes.
        let j = i;
        while (j < n) {
          const c = text.charCodeAt(j);
          if (c === 0x22 || c === 0x0d || c === 0x0a || (escapes && c === 0x5c)) break;
          j += 1;
        }
        if (j > i) {
          field += text.slice(i, j);
          i = j;
          continue;
        }
        const next = i + 1 < n ? text.charCodeAt(i + 1) : -1;
        if (next === -1 && !final && (ch === 0x22 || ch === 0x0d || ch === 0x5c)) {
          stop = i;
          break scan;
        }
        if (ch === 0x22) {
          if (next === 0x22) {
            field += '"';
            i += 2;
            continue;
          }
          i += 1;
          inQuotes = false;
          afterQuote = true;
          quoteIndex = -1;
          continue;
        }
        if (ch === 0x5c) {
          if (next === 0x22 || next === 0x27 || next === 0x5c) {
            field += text[i + 1];
            i += 2;
          } else {
            field += '\\';
            i += 1;
          }
          continue;
        }
        // A line break inside the quotes is data; the physical line still counts.
        const width = ch === 0x0d && next === 0x0a ? 2 : 1;
        field += text.slice(i, i + width);
        i += width;
        newLine(i);
        continue;
      }
      if (afterQuote) {
        afterQuote = false;
        if (ch !== 0x2c && ch !== 0x0d && ch !== 0x0a) {
          throw new CsvSyntaxError(line, columnAt(i), `unexpected ${JSON.stringify(text[i])} after a closing quote (a quote inside a quoted field is written "")`);
        }
      }
      if (atFieldStart && ch === 0x22) {
        // Quoted field: runs to the closing quote.
        inQuotes = true;
        atFieldStart = false;
        this.#quoteLine = line;
        quoteIndex = i;
        quoteLineStart = lineStart;
        quoteLineColumns = lineColumns;
        i += 1;
        continue;
      }
      atFieldStart = false;
      if (ch === 0x2c) {
        fields.push(field);
        field = '';
        atFieldStart = true;
        i += 1;
        continue;
      }
      if (ch === 0x0d || ch === 0x0a) {
        if (ch === 0x0d && i + 1 >= n && !final) {
          stop = i;
          break;
        }
        i += ch === 0x0d && text.charCodeAt(i + 1) === 0x0a ? 2 : 1;
        endRow();
        newLine(i);
        rowLine = line;
        continue;
      }
      if (escapes && ch === 0x5c) {
        if (i + 1 >= n && !final) {
          stop = i;
          break;
        }
        const next = text.charCodeAt(i + 1);
        if (next === 0x27 || next === 0x22) {
          field += text[i + 1];
          i += 2;
          continue;
        }
      }
      // Up to the next comma or line break (a quote here is data).
      let j = i + 1;
      while (j < n) {
        const c = text.charCodeAt(j);
        if (c === 0x2c || c === 0x0d || c === 0x0a || (escapes && c === 0x5c)) break;
        j += 1;
      }
      field += text.slice(i, j);
      i = j;
    }

    if (final) {
      if (inQuotes) {
        const column = quoteIndex >= 0 ? quoteLineColumns + codePoints(text, quoteLineStart, quoteIndex) + 1 : this.#quoteColumn;
        throw new CsvSyntaxError(this.#quoteLine, column, 'a quoted field is never closed (missing ")');
      }
      if (!atFieldStart || field !== '' || fields.length > 0) endRow();
    } else {
      if (inQuotes && quoteIndex >= 0) this.#quoteColumn = quoteLineColumns + codePoints(text, quoteLineStart, quoteIndex) + 1;
      this.#lineColumns = lineColumns + codePoints(text, lineStart, stop);
      this.#carry = text.slice(stop);
    }
    this.#fields = fields;
    this.#field = field;
    this.#atFieldStart = atFieldStart;
    this.#inQuotes = inQuotes;
    this.#afterQuote = afterQuote;
    this.#line = line;
    this.#rowLine = rowLine;
  }
}

/** One field as CSV: quoted when it holds a comma, quote, line break or edge spaces. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Rows as CSV text with CRLF line ends (RFC 4180). */
export function formatCsv(rows: readonly (readonly string[])[]): string {
  return rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}
