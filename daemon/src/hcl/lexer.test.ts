import { describe, expect, it } from 'vitest';
import { scan } from './lexer.js';

const types = (src: string): string[] => scan(src, 'f').tokens.all().map((t) => t.type);

describe('lexer', () => {
  it('tracks line, column (code points) and UTF-8 byte offset of every token', () => {
    const tokens = scan('a = "é😀"\r\nbb = 1', 'f').tokens.all();
    const bb = tokens.find((t) => t.text === 'bb');
    expect(bb?.range.start).toEqual({ line: 2, column: 1, byte: 14 });
    const close = tokens.find((t) => t.type === 'cquote');
    expect(close?.range.start).toEqual({ line: 1, column: 8, byte: 11 });
  });

  it('skips a byte order mark but counts its bytes', () => {
    const tokens = scan('\ufeffa = 1', 'f').tokens.all();
    expect(tokens[0]?.range.start).toEqual({ line: 1, column: 1, byte: 3 });
  });

  it('treats line comments as newlines and drops block comments', () => {
    expect(types('a # c\nb // d\n/* x\n y */c')).toEqual(['ident', 'newline', 'ident', 'newline', 'ident', 'eof']);
  });

  it('scans number literals with fractions and exponents, not a trailing dot', () => {
    expect(scan('1.5e+3 2E5 7.', 'f').tokens.all().map((t) => t.text)).toEqual(['1.5e+3', '2E5', '7', '.', '']);
  });

  it('scans identifiers with dashes and unicode letters', () => {
    expect(scan('foo-bar_1 ünïcode', 'f').tokens.all().map((t) => t.text)).toEqual(['foo-bar_1', 'ünïcode', '']);
  });

  it('tells an interpolation brace from an object brace', () => {
    expect(types('"${ {a=1} }"')).toEqual(['oquote', 'interp', '{', 'ident', '=', 'number', '}', 'seqend', 'cquote', 'eof']);
  });

  it('splits a heredoc into lines and emits its end marker and newline separately', () => {
    expect(types('<<EOT\nx\n  EOT\n')).toEqual(['oheredoc', 'stringlit', 'cheredoc', 'newline', 'eof']);
  });

  it('reports characters the language does not use', () => {
    const { diagnostics } = scan("a = 'x'", 'f');
    expect(diagnostics[0]?.summary).toBe('Invalid character');
    expect(diagnostics[0]?.range?.start.column).toBe(5);
  });

  it('works out positions lazily but serialises ranges as plain positions', () => {
    const [, , , text] = scan('a = "x\u00e9y"\n', 'f').tokens.all();
    expect(text?.type).toBe('quotedlit');
    expect(JSON.parse(JSON.stringify(text?.range))).toEqual({ filename: 'f', start: { line: 1, column: 6, byte: 5 }, end: { line: 1, column: 9, byte: 9 } });
  });
});
