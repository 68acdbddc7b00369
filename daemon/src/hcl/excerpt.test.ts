// The source lines around a problem with a caret under it, as config check and both consoles print them.
import { describe, expect, it } from 'vitest';
import { renderExcerpt, sourceExcerpt } from './excerpt.js';
import { parse } from './index.js';

const at = (line: number, column: number, endLine = line, endColumn = column): { filename: string; start: { line: number; column: number; byte: number }; end: { line: number; column: number; byte: number } } => ({
  filename: 'f.hcl',
  start: { line, column, byte: 0 },
  end: { line: endLine, column: endColumn, byte: 0 },
});

const show = (text: string, range: ReturnType<typeof at>, width?: number): string[] => renderExcerpt(sourceExcerpt(text, range), width).map((l) => l.text);

const SOURCE = 'server "main" {\n  endpoint "/a" {\n    response {\n      body = "hello\n    }\n  }\n}\n';

describe('source excerpts', () => {
  it('shows the line before, the line, a caret with ~ under the rest of the range, and the line after', () => {
    expect(show(SOURCE, at(4, 14, 4, 20))).toEqual(['3 │     response {', '4 │       body = "hello', '  │              ^~~~~~', '5 │     }']);
    expect(renderExcerpt(sourceExcerpt(SOURCE, at(4, 14, 4, 20))).map((l) => l.kind)).toEqual(['context', 'problem', 'caret', 'context']);
  });

  it('keeps to the lines around the problem, never more of the file', () => {
    const excerpt = sourceExcerpt(`${'x = 1\n'.repeat(500)}bad\n${'y = 2\n'.repeat(500)}`, at(501, 1, 501, 4));
    expect(excerpt).toEqual({ firstLine: 500, lines: ['x = 1', 'bad', 'y = 2'], line: 501, startColumn: 1, endColumn: 4 });
  });

  it('uses a single ^ for an empty range, and ~ to the line end for a range that goes on', () => {
    expect(show(SOURCE, at(4, 20))[2]).toBe('  │                    ^');
    expect(show(SOURCE, at(2, 3, 6, 4))).toEqual(['1 │ server "main" {', '2 │   endpoint "/a" {', '  │   ^~~~~~~~~~~~~~~', '3 │     response {']);
  });

  it('has no line before the first line, nor after the last; a final newline adds no empty line', () => {
    expect(show('a = [\n', at(1, 5, 1, 6))).toEqual(['1 │ a = [', '  │     ^']);
    expect(show('x = 1\ny = ', at(2, 5))).toEqual(['1 │ x = 1', '2 │ y =', '  │     ^']);
  });

  it('widens the gutter for the longest line number', () => {
    const text = `${'a = 1\n'.repeat(9)}b = ?\nc = 3\n`;
    expect(show(text, at(10, 5, 10, 6))).toEqual([' 9 │ a = 1', '10 │ b = ?', '   │     ^', '11 │ c = 3']);
  });

  it('expands tabs the same way in the line and under it, and counts columns in code points', () => {
    expect(show('\tx = "é😀"\tbad\n', at(1, 11, 1, 14))).toEqual(['1 │   x = "é😀"  bad', `  │ ${' '.repeat(12)}^~~`]);
  });

  it('takes positions from the parser as they are (a BOM and CRLF line ends included)', () => {
    const text = '\ufeffa = 1\r\nb = "x\r\nc = 3\r\n';
    const [problem] = parse(text, 'f.hcl').diagnostics;
    expect(show(text, problem!.range as ReturnType<typeof at>)).toEqual(['1 │ a = 1', '2 │ b = "x', '  │     ^~', '3 │ c = 3']);
  });

  it('cuts very long lines around the problem, keeping the caret under it', () => {
    const long = `a = "${'x'.repeat(300)}" + bad + "${'y'.repeat(300)}"`;
    const column = long.indexOf('bad') + 1;
    const excerpt = sourceExcerpt(long, at(1, column, 1, column + 3));
    expect(excerpt.lines[0]!.startsWith('…x')).toBe(true);
    expect(excerpt.lines[0]!.endsWith('y…')).toBe(true);
    expect([...excerpt.lines[0]!].length).toBe(162);
    const [line, caret] = renderExcerpt(excerpt).map((l) => l.text);
    expect([...line!].slice([...caret!].indexOf('^'), [...caret!].indexOf('^') + 3).join('')).toBe('bad');
  });

  it('moves the lines left to keep the caret in a narrow width, and cuts them there', () => {
    const text = `endpoint "/a" { response { body = "${'z'.repeat(60)}" bogus } }\n`;
    const column = text.indexOf('bogus') + 1;
    const lines = show(text, at(1, column, 1, column + 5), 40);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(40);
    expect(lines[0]).toMatch(/^1 │ …z+" bogus…$/);
    expect([...lines[0]!].indexOf('b')).toBe([...lines[1]!].indexOf('^'));
    expect(lines[1]).toMatch(/\^~~~~$/);
  });
});
