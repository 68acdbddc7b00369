import { describe, expect, it } from 'vitest';
import { parse } from './index.js';
import { parseErrors } from './testing/hcl-errors.js';

describe('parse: structure', () => {
  it('parses attributes and blocks with quoted and bare labels, with ranges', () => {
    const { body, diagnostics } = parse('server "main" api {\n  hosts = ["*:8080"]\n}\nsettings {}\n', 'g.hcl');
    expect(diagnostics).toEqual([]);
    const [server, settings] = body.blocks;
    expect(server?.type).toBe('server');
    expect(server?.labels).toEqual(['main', 'api']);
    expect(server?.range.start).toEqual({ line: 1, column: 1, byte: 0 });
    expect(server?.range.end.line).toBe(3);
    const hosts = server?.body.attributes['hosts'];
    expect(hosts?.name).toBe('hosts');
    expect(hosts?.range).toMatchObject({ filename: 'g.hcl', start: { line: 2, column: 3 }, end: { line: 2, column: 21 } });
    expect(settings?.labels).toEqual([]);
  });

  it('accepts one-line blocks with one attribute', () => {
    const { body, diagnostics } = parse('cors { max_age = "1h" }\nempty {}\n', 'f');
    expect(diagnostics).toEqual([]);
    expect(Object.keys(body.blocks[0]?.body.attributes ?? {})).toEqual(['max_age']);
  });

  it('handles CRLF line endings and all comment styles', () => {
    const { body, diagnostics } = parse('# a\r\nx = 1 // b\r\n/* c */ y = 2\r\n', 'f');
    expect(diagnostics).toEqual([]);
    expect(Object.keys(body.attributes)).toEqual(['x', 'y']);
  });

  it('rejects a nested block inside a one-line block', () => {
    expect(parseErrors('endpoint "/a" { response { status = 200 } }\n')).toEqual([
      't.hcl:1,17-27: Argument definition required; A single-line block definition can contain only a single argument. If you meant to define argument "response", use an equals sign to assign it a value. To define a nested block, place it on a line of its own within its parent block.',
    ]);
  });

  it('rejects two attributes in a one-line block', () => {
    expect(parseErrors('b { a = 1, c = 2 }\n')).toEqual([
      't.hcl:1,10-11: Invalid single-argument block definition; Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.',
    ]);
  });

  it('reports a redefined attribute with both positions', () => {
    expect(parseErrors('a = 1\na = 2\n')).toEqual([
      't.hcl:2,1-2: Attribute redefined; The argument "a" was already set at t.hcl:1,1-2. Each argument may be set only once.',
    ]);
  });

  it('reports an unclosed block at its opening brace', () => {
    expect(parseErrors('server {\n  a = 1\n')).toEqual([
      't.hcl:1,8-9: Unclosed configuration block; There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.',
    ]);
  });

  it('reports commas between attributes and quoted names', () => {
    expect(parseErrors('a = 1, b = 2\n')).toEqual([
      't.hcl:1,6-7: Unexpected comma after argument; Argument definitions must be separated by newlines, not commas. An argument definition must end with a newline.',
    ]);
    expect(parseErrors('"q" = 1\n')).toEqual(['t.hcl:1,1-2: Invalid argument name; Argument names must not be quoted.']);
    expect(parseErrors('b x = 1\n')).toEqual([
      't.hcl:1,5-6: Invalid block definition; The equals sign "=" indicates an argument definition, and must not be used when defining a block.',
    ]);
  });

  it('collects independent errors from several items', () => {
    expect(parseErrors('a = [1 2]\nb = )\nc = 3\n')).toEqual([
      't.hcl:1,8-9: Missing item separator; Expected a comma to mark the beginning of the next item.',
      't.hcl:2,5-6: Invalid expression; Expected the start of an expression, but found an invalid expression token.',
    ]);
  });

  it('prints a multi-line range as l1,c1-l2,c2', () => {
    expect(parseErrors('b "x"\n{}\n')[0]).toMatch(/^t\.hcl:1,6-2,1: Invalid block definition; /);
  });

  it('ends a string left open at its line break, from its opening quote', () => {
    expect(parseErrors('a = "abc\nb = 2\n')).toEqual([
      't.hcl:1,5-9: Invalid multi-line string; This string has no closing quote (") on its line. Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the "heredoc" multi-line template syntax.',
    ]);
  });

  it('reports labels with template sequences and blocks split from their brace', () => {
    expect(parseErrors('b "${x}" {}\n')[0]).toBe('t.hcl:1,4-6: Invalid string literal; Template sequences are not allowed in this string. To include a literal "$", double it (as "$$") to escape it.');
    expect(parseErrors('b "x"\n{}\n')[0]).toMatch(/^t\.hcl:1,6-2,1: Invalid block definition; A block definition must have block content/);
  });
});
