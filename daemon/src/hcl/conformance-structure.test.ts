import { describe, expect, it } from 'vitest';
import { evaluate, parse } from './index.js';
import { parseErrors } from './testing/hcl-errors.js';

// Bodies, blocks, comments, newlines and identifiers, as the upstream specification and
// reference implementation define them.

/** Evaluates every attribute of a parsed file's top level. */
function attrs(src: string, vars: Record<string, unknown> = {}): Record<string, unknown> {
  const { body, diagnostics } = parse(src, 't.hcl');
  expect(diagnostics).toEqual([]);
  return Object.fromEntries(Object.values(body.attributes).map((a) => [a.name, evaluate(a.expr, vars)]));
}
const summaries = (src: string): string[] => parseErrors(src).map((e) => e.replace(/^[^:]+:[^:]+: /, '').split(';')[0] as string);

describe('conformance: bodies and blocks', () => {
  it('reads attributes, nested blocks, quoted and bare labels', () => {
    const { body, diagnostics } = parse('a = 1\nsvc "web" bare {\n  inner {\n    x = 2\n  }\n}\n', 't.hcl');
    expect(diagnostics).toEqual([]);
    const [svc] = body.blocks;
    expect(svc?.labels).toEqual(['web', 'bare']);
    expect(svc?.body.blocks[0]?.type).toBe('inner');
  });

  it('resolves escapes in block labels but refuses template sequences there', () => {
    expect(parse('b "a\\tb" {}\n', 't.hcl').body.blocks[0]?.labels).toEqual(['a\tb']);
    expect(summaries('b "${x}" {}\n')).toEqual(['Invalid string literal']);
  });

  it('accepts one-line blocks with no or one attribute', () => {
    const { body, diagnostics } = parse('e {}\nf { a = 1 }\ng "l" { b = "x" } # note\n', 't.hcl');
    expect(diagnostics).toEqual([]);
    expect(body.blocks.map((b) => Object.keys(b.body.attributes))).toEqual([[], ['a'], ['b']]);
  });

  it('refuses nested blocks, several attributes or a line break in a one-line block', () => {
    expect(summaries('b { c {} }\n')).toEqual(['Argument definition required']);
    expect(summaries('b { a = 1, c = 2 }\n')).toEqual(['Invalid single-argument block definition']);
    expect(summaries('b { a = 1\n}\n')).toEqual(['Invalid single-argument block definition']);
  });

  it('reports an attribute set twice, pointing at both places', () => {
    expect(parseErrors('a = 1\na = 2\n')).toEqual(['t.hcl:2,1-2: Attribute redefined; The argument "a" was already set at t.hcl:1,1-2. Each argument may be set only once.']);
  });

  it('reports malformed items', () => {
    expect(summaries('"a" = 1\n')).toEqual(['Invalid argument name']);
    expect(summaries('a = 1 b = 2\n')).toEqual(['Missing newline after argument']);
    expect(summaries('a = 1,\n')).toEqual(['Unexpected comma after argument']);
    expect(summaries('b "x" = 1\n')).toEqual(['Invalid block definition']);
    expect(summaries('b "x"\n{\n}\n')).toEqual(['Invalid block definition']);
    // With no label, a type name alone on its line is not a block header at all.
    expect(summaries('b\n{\n}\n')).toEqual(['Argument or block definition required']);
    expect(summaries('b {} c {}\n')).toEqual(['Missing newline after block definition']);
    expect(summaries('b {\n')).toEqual(['Unclosed configuration block']);
    expect(summaries('a\n')).toEqual(['Argument or block definition required']);
    expect(summaries('= 1\n')).toEqual(['Argument or block definition required']);
  });

  it('reports independent mistakes in one file together', () => {
    expect(summaries('a = 1 2\nb = \nc = 3\nc = 4\n')).toEqual(['Missing newline after argument', 'Invalid expression', 'Attribute redefined']);
  });

  it('accepts an attribute on the last line without a newline', () => {
    expect(attrs('a = 1')).toEqual({ a: 1 });
    expect(attrs('a = 1 # done')).toEqual({ a: 1 });
  });
});

describe('conformance: comments and newlines', () => {
  it('treats #, // and /* */ comments as the spec says', () => {
    expect(attrs('# c\na = 1 # c\nb = 2 // c\n/* c */ c = /* c */ 3 /* c */\n')).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('lets an inline comment span lines without ending the attribute early', () => {
    expect(attrs('a = 1 + /* one\ntwo */ 2\n')).toEqual({ a: 3 });
    expect(attrs('a = 1 /* one\ntwo */\nb = 2\n')).toEqual({ a: 1, b: 2 });
    expect(summaries('a = 1 /* x\ny */ b = 2\n')).toEqual(['Missing newline after argument']);
  });

  it('accepts CRLF line endings everywhere', () => {
    expect(attrs('a = 1\r\nb = [\r\n  2,\r\n]\r\nc = <<EOT\r\nx\r\nEOT\r\n')).toEqual({ a: 1, b: [2], c: 'x\r\n' });
  });

  it('ignores newlines and comments inside brackets, parentheses and calls', () => {
    expect(attrs('a = [\n  1, # one\n  2 // two\n]\nb = (\n  1 +\n  2\n)\nc = join(\n",",\n["x"]\n)\n')).toEqual({ a: [1, 2], b: 3, c: 'x' });
  });

  it('separates object items by newlines or commas, comments allowed', () => {
    expect(attrs('o = {\n  a = 1 # c\n  b = 2, c = 3\n\n  d = 4\n}\n')).toEqual({ o: { a: 1, b: 2, c: 3, d: 4 } });
    expect(summaries('o = { a = 1 b = 2 }\n')).toEqual(['Missing attribute separator']);
  });

  it('ends an attribute at a newline outside brackets', () => {
    expect(parseErrors('a = 1 +\n2\n').length).toBeGreaterThan(0);
    expect(parseErrors('a = true\n  ? 1 : 2\n').length).toBeGreaterThan(0);
  });

  it('allows a for expression to start on the line after its bracket', () => {
    expect(attrs('o = {\n  a = {\n  for k, v in {hello = "world"}:\nk => v\n  }\n}\n')).toEqual({ o: { a: { hello: 'world' } } });
  });
});

describe('conformance: identifiers and positions', () => {
  it('allows dashes and unicode letters in names, so b-c is one variable', () => {
    expect(attrs('a = b-c\nd = b - c\nünï = 1\n', { 'b-c': 10, b: 5, c: 2 })).toEqual({ a: 10, d: 3, ünï: 1 });
  });

  it('counts a tab as one column', () => {
    expect(parseErrors('\ta = 1 2\n')[0]).toMatch(/^t\.hcl:1,8-9: Missing newline after argument/);
  });

  it('counts columns in characters and byte offsets in UTF-8', () => {
    const { body } = parse('s = "é😀"\nt = 1\n', 't.hcl');
    const t = body.attributes['t'];
    expect(t?.range.start).toEqual({ line: 2, column: 1, byte: 13 });
    expect(body.attributes['s']?.range.end).toEqual({ line: 1, column: 9, byte: 12 });
  });

  it('reports characters that are not part of the language', () => {
    expect(summaries("a = 'x'\n")[0]).toBe('Invalid character');
    expect(summaries('a = 1;\n')[0]).toBe('Invalid character');
    expect(summaries('a = b & c\n')[0]).toBe('Unsupported operator');
  });
});
