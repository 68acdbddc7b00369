import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvReader, CsvSyntaxError, formatCsv, parseCsv, type CsvParseOptions } from './csv.js';
import { PorticoError } from './errors.js';
import { referenceParseCsv } from './testing/csv-reference.js';

/** The error `parseCsv` throws for `text`, or a failure when it parses. */
function syntaxError(text: string, options?: Parameters<typeof parseCsv>[1]): CsvSyntaxError {
  try {
    parseCsv(text, options);
  } catch (error) {
    if (error instanceof CsvSyntaxError) return error;
    throw error;
  }
  throw new Error(`parsed without an error: ${JSON.stringify(text)}`);
}

describe('parseCsv', () => {
  it('reads quoted fields with commas, doubled quotes and embedded CRLF, and numbers lines', () => {
    const rows = parseCsv('a,b,c\r\n1,"x, y","say ""hi"""\r\n2,"two\r\nlines",z\r\n3,,\r\n');
    expect(rows).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', 'x, y', 'say "hi"'] },
      { line: 3, fields: ['2', 'two\r\nlines', 'z'] },
      { line: 5, fields: ['3', '', ''] },
    ]);
  });

  it('accepts LF, a lone CR, a missing final newline, a byte-order mark, and skips blank lines', () => {
    expect(parseCsv('\uFEFFa,b\n\n1,2')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 3, fields: ['1', '2'] },
    ]);
    expect(parseCsv('a\rb\r\n"c\rd"\n')).toEqual([
      { line: 1, fields: ['a'] },
      { line: 2, fields: ['b'] },
      { line: 3, fields: ['c\rd'] },
    ]);
    expect(parseCsv('\uFEFF"quoted",x\r\n')).toEqual([{ line: 1, fields: ['quoted', 'x'] }]);
  });

  it('keeps a quote inside an unquoted field as data, and a trailing comma as an empty last field', () => {
    expect(parseCsv('5" disk,b,\n')).toEqual([{ line: 1, fields: ['5" disk', 'b', ''] }]);
  });

  it('refuses a quote that is never closed, naming the line and column it opened at', () => {
    const error = syntaxError('a,b\n1,"open\n2,3\n');
    expect(error).toBeInstanceOf(PorticoError);
    expect(error).toMatchObject({ code: 'csv_syntax', line: 2, column: 3 });
    expect(error.message).toBe('line 2, column 3: a quoted field is never closed (missing ")');
  });

  it('refuses text after a closing quote, pointing at that text', () => {
    expect(syntaxError('a\n"x"y\n').message).toBe('line 2, column 4: unexpected "y" after a closing quote (a quote inside a quoted field is written "")');
    // Lines and columns count from the physical line, after embedded line breaks, a BOM and CRLF.
    expect(syntaxError('\uFEFFh1,h2\r\n1,"two\r\nlines"!\r\n')).toMatchObject({ line: 3, column: 7 });
    // A column counts characters, not UTF-16 units.
    expect(syntaxError('"😀",x\n😀,"é"z\n')).toMatchObject({ line: 2, column: 6 });
  });

  it('reads a line of 60,000 quoted fields in linear time (quadratic takes minutes, past the test timeout)', () => {
    const line = Array.from({ length: 60_000 }, (_, k) => `"${k % 10}"`).join(',');
    const rows = parseCsv(`h\n${line}\n`);
    expect(rows[1]!.line).toBe(2);
    expect(rows[1]!.fields).toHaveLength(60_000);
    expect(rows[1]!.fields[59_999]).toBe('9');
    // An error at the end of such a line still counts its column from the start of the line.
    expect(syntaxError(`h\n${line},"open\n`)).toMatchObject({ line: 2, column: line.length + 2 });
  });

  it('reads backslash escapes only when asked (legacy files)', () => {
    expect(parseCsv("a\n\"we\\'re\"\n")[1]?.fields).toEqual(["we\\'re"]);
    expect(parseCsv("a\n\"we\\'re\",it\\'s\n", { backslashEscapes: true })[1]?.fields).toEqual(["we're", "it's"]);
  });

  it('round-trips any table through formatCsv', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', ',', '"', '\r', '\n', ' ', 'é', '\\') });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 5 }), (table) => {
        const width = table[0]!.length;
        const rows = table.map((r) => [...r.slice(0, width), ...Array<string>(Math.max(0, width - r.length)).fill('')]);
        expect(parseCsv(formatCsv(rows)).map((r) => r.fields)).toEqual(rows);
      }),
    );
  });
});

/** What parsing gave: the records, or the error's line, column and message. */
function outcome(parse: () => unknown): unknown {
  try {
    return { rows: parse() };
  } catch (error) {
    if (error instanceof CsvSyntaxError) return { error: [error.line, error.column, error.message] };
    throw error;
  }
}

/** `text` through a CsvReader in pieces cut at `cuts` (never inside a surrogate pair, as a streaming TextDecoder never cuts one). */
function inPieces(text: string, cuts: number[], options: CsvParseOptions): unknown {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))]
    .filter((c) => !(c > 0 && c < text.length && text.charCodeAt(c - 1) >= 0xd800 && text.charCodeAt(c - 1) <= 0xdbff))
    .sort((a, b) => a - b);
  return outcome(() => {
    const reader = new CsvReader(options);
    const rows = [];
    let from = 0;
    for (const cut of [...at, text.length]) {
      rows.push(...reader.push(text.slice(from, cut)));
      from = cut;
    }
    rows.push(...reader.end());
    return rows;
  });
}

describe('CsvReader (pieces of a text)', () => {
  const unit = fc.constantFrom('a', 'b', ',', ',', '"', '"', '\r', '\n', '\r\n', '\\', "'", ' ', 'é', '\u{1F600}');
  const text = fc.tuple(fc.boolean(), fc.array(unit, { maxLength: 60 })).map(([bom, units]) => (bom ? '\uFEFF' : '') + units.join(''));

  it('reads any text cut anywhere as the whole-text parser before it did: the same records, or the same error at the same line and column', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), (input, cuts, backslashEscapes) => {
        const expected = outcome(() => referenceParseCsv(input, { backslashEscapes }));
        expect(outcome(() => parseCsv(input, { backslashEscapes }))).toEqual(expected);
        expect(inPieces(input, cuts, { backslashEscapes })).toEqual(expected);
        // One character a piece: every boundary at once.
        expect(inPieces(input, Array.from({ length: input.length }, (_, k) => k), { backslashEscapes })).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it("counts a long line's columns across pieces, and holds only the unfinished record between them", () => {
    const line = Array.from({ length: 20_000 }, (_, k) => `"${k % 10}é"`).join(',');
    const reader = new CsvReader();
    const rows = [];
    for (let k = 0; k < line.length; k += 4096) rows.push(...reader.push(`${k === 0 ? 'h\n' : ''}${line.slice(k, k + 4096)}`));
    expect(rows.map((r) => r.fields)).toEqual([['h']]);
    rows.push(...reader.push(',"open\n'));
    expect(() => reader.end()).toThrow(new CsvSyntaxError(2, [...line].length + 2, 'a quoted field is never closed (missing ")'));
  });

  it('refuses a push after end', () => {
    const reader = new CsvReader();
    reader.end();
    expect(() => reader.push('a')).toThrow(/after end/);
  });
});
