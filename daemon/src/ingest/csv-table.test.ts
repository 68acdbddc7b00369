import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvError, inferType, readCsvTable, scanCsvTable, type Cell, type Column, type PartLimits } from './csv-table.js';

const bytes = (s: string) => new TextEncoder().encode(s);

/** `content` as a file read in pieces of `size` bytes (the last may be shorter). */
async function* piecesOf(content: Uint8Array, size = content.length || 1): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < content.length; at += size) yield content.subarray(at, at + size);
}

/** Both reads of a file, as a job makes them: its columns, its rows, and the parts they came in. */
async function table(content: Uint8Array, pieceSize?: number, limits?: PartLimits): Promise<{ columns: Column[]; rows: Cell[][]; parts: number[] }> {
  const shape = await scanCsvTable(piecesOf(content, pieceSize));
  const rows: Cell[][] = [];
  const parts: number[] = [];
  await readCsvTable(
    piecesOf(content, pieceSize),
    shape,
    async (part) => {
      parts.push(part.length);
      rows.push(...part);
    },
    limits,
  );
  expect(rows).toHaveLength(shape.rowCount);
  return { columns: shape.columns, rows, parts };
}

/** The CsvError a file's first read gives, or a failure when it reads. */
async function scanError(content: Uint8Array, pieceSize?: number): Promise<string> {
  try {
    await scanCsvTable(piecesOf(content, pieceSize));
  } catch (error) {
    if (error instanceof CsvError) return error.message;
    throw error;
  }
  throw new Error('read without an error');
}

describe('CSV to a typed table, read in pieces', () => {
  it('parses quotes, doubled quotes, embedded newlines, CRLF and a byte-order mark', async () => {
    const t = await table(bytes('\uFEFFa,b\r\n"x, y","say ""hi""\nthere"\r\n'));
    expect(t.columns.map((c) => c.name)).toEqual(['a', 'b']);
    expect(t.rows).toEqual([['x, y', 'say "hi"\nthere']]);
  });

  it('infers integer, number, boolean, date, timestamp and text, with nulls for empty cells', async () => {
    const t = await table(bytes('id,price,ok,day,at,name\n1,2.5,true,2024-01-02,2024-01-02T10:00:00Z,a\n2,,FALSE,2024-02-03,2024-01-02 11:00,b\n'));
    expect(t.columns.map((c) => `${c.name}:${c.type}${c.nullable ? '?' : ''}`)).toEqual(['id:integer', 'price:number?', 'ok:boolean', 'day:date', 'at:timestamp', 'name:text']);
    expect(t.rows[1]).toEqual([2, null, false, '2024-02-03', '2024-01-02 11:00', 'b']);
    expect(inferType(['007', '12'])).toBe('integer');
    expect(inferType(['2024-13-45'])).toBe('text');
    expect(inferType(['', ''])).toBe('text');
    expect(inferType(['1', 'true'])).toBe('text');
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
    ['a\nx\0y\n', /NUL bytes/],
  ])('fails %j with a clear message, whole or a byte at a time', async (text, message) => {
    for (const size of [undefined, 1]) {
      await expect(scanCsvTable(piecesOf(bytes(text), size))).rejects.toThrow(CsvError);
      await expect(scanCsvTable(piecesOf(bytes(text), size))).rejects.toThrow(message);
    }
  });

  it('refuses bytes that are not UTF-8, saying where, and a file cut inside a character', async () => {
    const bad = new Uint8Array([...bytes('a\nb\n'), 0xff, 0xfe, 0x0a]);
    expect(await scanError(bad)).toMatch(/not UTF-8 text .*within bytes 1 to 7/);
    expect(await scanError(bad, 2)).toMatch(/within bytes 5 to 6/);
    expect(await scanError(bytes('a\né').subarray(0, 3))).toMatch(/not UTF-8 text .*at its end/);
  });

  it('reads any file cut into any pieces as the whole text: the same columns, rows and errors', async () => {
    const cell = fc.constantFrom('', '1', '-2', '2.5', 'true', 'FALSE', '2024-01-02', '2024-01-02 10:00', 'x', '"q, ""r"""', 'é', '\u{1F600}', '"two\nlines"', 'x,y', '"open');
    const file = fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { maxLength: 8 }).chain((rows) =>
      fc.tuple(fc.constant(['a,b,c', ...rows.map((r) => r.join(','))]), fc.constantFrom('\n', '\r\n'), fc.boolean()).map(([lines, end, bom]) => bytes((bom ? '\uFEFF' : '') + lines.join(end) + end)),
    );
    await fc.assert(
      fc.asyncProperty(file, fc.integer({ min: 1, max: 64 }), async (content, size) => {
        const read = (pieceSize?: number) => table(content, pieceSize).catch((error: unknown) => (error instanceof CsvError ? error.message : Promise.reject(error)));
        expect(await read(size)).toEqual(await read());
      }),
      { numRuns: 300 },
    );
  });

  it('hands the rows over in parts of at most the limit, in order', async () => {
    const lines = ['n,word', ...Array.from({ length: 25 }, (_, k) => `${k},w${k}`)].join('\n');
    const t = await table(bytes(lines), 7, { rows: 10, chars: 1024 * 1024 });
    expect(t.parts).toEqual([10, 10, 5]);
    expect(t.rows.map((r) => r[0])).toEqual(Array.from({ length: 25 }, (_, k) => k));
    // About this many characters of cells end a part too.
    expect((await table(bytes(lines), 7, { rows: 1000, chars: 60 })).parts.every((n) => n < 25)).toBe(true);
  });

  it('refuses a second read that is not the file the first read typed', async () => {
    const shape = await scanCsvTable(piecesOf(bytes('a,b\n1,2\n')));
    await expect(readCsvTable(piecesOf(bytes('a,b\n1,2\n3,4\n')), shape, async () => {})).rejects.toThrow(/changed between its two reads/);
    await expect(readCsvTable(piecesOf(bytes('a,c\n1,2\n')), shape, async () => {})).rejects.toThrow(/changed between its two reads/);
  });
});
