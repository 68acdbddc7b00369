import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvSyntaxError, formatCsv, parseCsv } from './csv.js';

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

  it('accepts LF, a missing final newline, a byte-order mark, and skips blank lines', () => {
    expect(parseCsv('\uFEFFa,b\n\n1,2')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 3, fields: ['1', '2'] },
    ]);
  });

  it('refuses a quote that is never closed, naming the line it opened on', () => {
    expect(() => parseCsv('a,b\n1,"open\n2,3\n')).toThrow(CsvSyntaxError);
    expect(() => parseCsv('a,b\n1,"open\n2,3\n')).toThrow(/line 2: a quoted field is never closed/);
  });

  it('refuses text after a closing quote', () => {
    expect(() => parseCsv('a\n"x"y\n')).toThrow(/line 2: unexpected "y" after a closing quote/);
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
