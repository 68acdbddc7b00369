import { describe, expect, it } from 'vitest';
import { evaluateSource, parse } from './index.js';
import { evalErrors, parseErrors } from './testing/hcl-errors.js';

const ev = (src: string, vars: Record<string, unknown> = {}): unknown => evaluateSource(src, vars);

describe('templates', () => {
  it('parses a string of literal text alone to the template the full parse makes, with the same ranges', () => {
    // `"a\tb"` takes the shortcut for plain strings; `"a${""}b"` the full template parse.
    const { body } = parse('s = "a\\tb"\nt = "a${""}b"\nu = ""\n', 't.hcl');
    const plain = body.attributes['s']?.expr;
    expect(plain?.kind).toBe('template');
    if (plain?.kind !== 'template') return;
    expect(plain.parts).toHaveLength(1);
    const [literal] = plain.parts;
    expect(literal?.kind === 'literal' && literal.value).toBe('a\tb');
    expect([literal?.range.start, literal?.range.end]).toEqual([
      { line: 1, column: 6, byte: 5 },
      { line: 1, column: 10, byte: 9 },
    ]);
    expect([plain.range.start, plain.range.end]).toEqual([
      { line: 1, column: 5, byte: 4 },
      { line: 1, column: 11, byte: 10 },
    ]);
    const full = body.attributes['t']?.expr;
    expect(full?.kind === 'template' && full.parts.map((p) => p.kind)).toEqual(['literal', 'template', 'literal']);
    expect([full?.range.start.column, full?.range.end.column]).toEqual([5, 14]);
    // `""` is one empty literal just after the opening quote, as before.
    const empty = body.attributes['u']?.expr;
    expect(empty?.kind === 'template' && empty.parts.map((p) => [p.kind, p.kind === 'literal' && p.value, p.range.start.column, p.range.end.column])).toEqual([['literal', '', 6, 6]]);
    expect(ev('"a\\tb"')).toBe('a\tb');
  });

  it('resolves every escape sequence', () => {
    expect(ev('"a\\nb\\rc\\td\\"e\\\\f\\u00e9\\U0001F600"')).toBe('a\nb\rc\td"e\\fé😀');
  });

  it('escapes interpolation and directive introducers by doubling', () => {
    expect(ev('"$${x} %%{y} $ % $x"')).toBe('${x} %{y} $ % $x');
  });

  it('interpolates values and prints numbers as plain decimals', () => {
    expect(ev('"n=${1e21} m=${n}"', { n: 0.5 })).toBe('n=1000000000000000000000 m=0.5');
    expect(ev('"${true}-${1.50}"')).toBe('true-1.5');
  });

  it('unwraps a template that is a single interpolation', () => {
    expect(ev('"${true}"')).toBe(true);
    expect(ev('"${"${[1]}"}"')).toEqual([1]);
    expect(ev('"${""}${true}"')).toBe('true');
  });

  it('applies strip markers to adjacent literals only', () => {
    expect(ev('"hello ${~ "world" }"')).toBe('helloworld');
    expect(ev('"%{ if true ~} hello %{~ endif }"')).toBe('hello');
    expect(ev('"${"hello" ~}${" world"}"')).toBe('hello world');
  });

  it('evaluates if/else/endif and for/endfor directives', () => {
    expect(ev('"%{if x}yes%{else}no%{endif}"', { x: false })).toBe('no');
    expect(ev('"%{ for i, v in ["a", "b"] }${i}${v};%{ endfor }"')).toBe('0a;1b;');
    expect(ev('"%{ for v in [true] }${v}%{ endfor }"')).toBe('true');
  });

  it('parses heredocs, stripping indentation for <<-', () => {
    expect(ev('<<EOT\nhello\n  ${x}\nEOT\n', { x: 'w' })).toBe('hello\n  w\n');
    expect(ev('<<-EOT\n    a\n      b\n\n    c\n    EOT\n')).toBe('a\n  b\n\nc\n');
    expect(ev('<<EOT\r\nx\r\nEOT\r\n')).toBe('x\r\n');
  });

  it('reports unbalanced directives with positions', () => {
    expect(parseErrors('a = "%{ if true }x"\n')).toEqual([
      't.hcl:1,19-20: Unexpected end of template; The if directive at t.hcl:1,6-18 is missing its corresponding endif directive.',
    ]);
    expect(parseErrors('a = "%{ endfor }"\n')).toEqual([
      't.hcl:1,6-17: Unexpected endfor directive; The control directives within this template are unbalanced.',
    ]);
    expect(parseErrors('a = "%{ iff x }"\n')).toEqual([
      't.hcl:1,9-12: Invalid template control keyword; "iff" is not a valid template control keyword. Did you mean "if"?',
    ]);
  });

  it('reports bad escapes and unterminated strings', () => {
    expect(parseErrors('a = "\\q"\n')).toEqual(['t.hcl:1,6-8: Invalid escape sequence; The symbol "q" is not a valid escape sequence selector.']);
    expect(parseErrors('a = "\\u12"\n')).toEqual(['t.hcl:1,6-10: Invalid escape sequence; The \\u escape sequence must be followed by four hexadecimal digits.']);
    // Reported at the opener, not at the end of the file where nothing can be fixed.
    expect(parseErrors('a = <<EOT\nhello\nEOT')).toEqual([
      't.hcl:1,5-10: Unterminated template string; No closing marker was found for the string: the heredoc opened here runs to the end of the file. End it with a line holding only EOT, followed by a line break.',
    ]);
  });

  it('refuses null and non-string interpolations', () => {
    expect(evalErrors('"a${null}"')).toEqual(['e:1,5-9: Invalid template interpolation value; The expression result is null. Cannot include a null value in a string template.']);
    expect(evalErrors('"a${[1]}"')).toEqual(['e:1,5-8: Invalid template interpolation value; Cannot include the given value in a string template: string required.']);
  });
});
