import { describe, expect, it } from 'vitest';
import { CsvError, inferType, parseCsvTable } from './csv-table.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('CSV to a typed table', () => {
  it('parses quotes, doubled quotes, embedded newlines, CRLF and a byte-order mark', () => {
    const t = parseCsvTable(bytes('\uFEFFa,b\r\n"x, y","say ""hi""\nthere"\r\n'));
    expect(t.columns.map((c) => c.name)).toEqual(['a', 'b']);
    expect(t.rows).toEqual([['x, y', 'say "hi"\nthere']]);
  });

  it('infers integer, number, boolean, date, timestamp and text, with nulls for empty cells', () => {
    const t = parseCsvTable(bytes('id,price,ok,day,at,name\n1,2.5,true,2024-01-02,2024-01-02T10:00:00Z,a\n2,,FALSE,2024-02-03,2024-01-02 11:00,b\n'));
    expect(t.columns.map((c) => `${c.name}:${c.type}${c.nullable ? '?' : ''}`)).toEqual(['id:integer', 'price:number?', 'ok:boolean', 'day:date', 'at:timestamp', 'name:text']);
    expect(t.rows[1]).toEqual([2, null, false, '2024-02-03', '2024-01-02 11:00', 'b']);
    expect(inferType(['007', '12'])).toBe('integer');
    expect(inferType(['2024-13-45'])).toBe('text');
  });

  it.each([
    ['', /empty/],
    ['a,b\n1\n', /line 2 has 1 fields; the header has 2/],
    ['a,a\n1,2\n', /repeats the name 'a'/],
    ['a,\n1,2\n', /column 2 has no name/],
    ['a\n"open\n', 'line 2, column 1: a quoted field is never closed (missing ")'],
    ['a,b\n1,"x"y\n', 'line 2, column 6: unexpected "y" after a closing quote'],
    // Counted in lines of the file: past a blank line, and past a quoted field over two lines.
    ['a,b\n1,2\n\n3\n', 'line 4 has 1 fields; the header has 2'],
    ['a,b\n"two\nlines",2\n3\n', 'line 4 has 1 fields; the header has 2'],
  ])('fails %j with a clear message', (text, message) => {
    expect(() => parseCsvTable(bytes(text))).toThrow(CsvError);
    expect(() => parseCsvTable(bytes(text))).toThrow(message);
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(() => parseCsvTable(new Uint8Array([0x61, 0x0a, 0xff, 0xfe, 0x0a]))).toThrow(/not UTF-8/);
  });
});
