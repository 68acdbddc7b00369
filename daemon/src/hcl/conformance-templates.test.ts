import { describe, expect, it } from 'vitest';
import { evaluateSource } from './index.js';
import { evalErrors } from './testing/hcl-errors.js';

// String escapes, template sequences, strip markers, heredocs and unwrapping, as the
// upstream specification and reference implementation define them.

const ev = (src: string, vars: Record<string, unknown> = {}): unknown => evaluateSource(src, vars);
const problems = (src: string, vars: Record<string, unknown> = {}): string[] => evalErrors(src, vars).map((e) => e.replace(/^[^:]+:[^:]+: /, ''));

describe('conformance: quoted string escapes', () => {
  it('resolves the seven escape forms', () => {
    expect(ev('"tab\\there"')).toBe('tab\there');
    expect(ev('"q\\"q\\\\"')).toBe('q"q\\');
    expect(ev('"cr\\rlf\\n"')).toBe('cr\rlf\n');
    expect(ev('"\\u0041\\u00DF"')).toBe('Aß');
    expect(ev('"\\U0001F642"')).toBe('🙂');
  });

  it('leaves dollar and percent signs alone unless they open a sequence', () => {
    expect(ev('"$"')).toBe('$');
    expect(ev('"50%"')).toBe('50%');
    expect(ev('"cost: $5, $$name"')).toBe('cost: $5, $$name');
    expect(ev('"$${literal} %%{also}"')).toBe('${literal} %{also}');
    expect(ev('"%$%%$$"')).toBe('%$%%$$');
  });

  it('reports unknown selectors and short or unencodable unicode escapes', () => {
    expect(problems('"a\\qb"')).toEqual(['Invalid escape sequence; The symbol "q" is not a valid escape sequence selector.']);
    expect(problems('"\\u12"')).toEqual(['Invalid escape sequence; The \\u escape sequence must be followed by four hexadecimal digits.']);
    expect(problems('"\\U0001F6"')).toEqual(['Invalid escape sequence; The \\U escape sequence must be followed by eight hexadecimal digits.']);
    expect(problems('"\\uD800"')).toEqual(['Invalid escape sequence; Cannot encode character U+d800 in UTF-8.']);
  });

  it('refuses a quoted string that runs onto a second line', () => {
    expect(problems('"one\ntwo"')[0]).toMatch(/^Invalid multi-line string;/);
  });

  it('reports a string with no closing quote', () => {
    expect(problems('"open')[0]).toMatch(/^Unterminated template string;/);
  });
});

describe('conformance: interpolation and unwrapping', () => {
  it('converts interpolated values to strings', () => {
    expect(ev('"n=${12.5} b=${false} s=${"x"}"')).toBe('n=12.5 b=false s=x');
    expect(ev('"silly ${"${"nesting"}"}"')).toBe('silly nesting');
  });

  it('returns the value itself when the template is one interpolation and nothing else', () => {
    expect(ev('"${true}"')).toBe(true);
    expect(ev('"${"${true}"}"')).toBe(true);
    expect(ev('"${[1, 2]}"')).toEqual([1, 2]);
    expect(ev('"${null}"')).toBe(null);
    expect(ev('"hello ${true}"')).toBe('hello true');
    expect(ev('"${""}${true}"')).toBe('true');
    expect(ev('"%{ for v in [true] }${v}%{ endfor }"')).toBe('true');
  });

  it('refuses null and collections inside a larger template', () => {
    expect(problems('"a${null}"')).toEqual(['Invalid template interpolation value; The expression result is null. Cannot include a null value in a string template.']);
    expect(problems('"a${[1]}"')[0]).toMatch(/^Invalid template interpolation value; Cannot include the given value in a string template: string required/);
  });

  it('reports extra tokens after an interpolated expression', () => {
    expect(problems('"${a b}"', { a: 1, b: 2 })[0]).toMatch(/^Extra characters after interpolation expression; Expected a closing brace/);
    expect(problems('"${a:b}"', { a: 1, b: 2 })[0]).toMatch(/^Extra characters after interpolation expression; Template interpolation doesn't expect a colon/);
  });
});

describe('conformance: strip markers', () => {
  it('strips white space from the literal next to the marker only', () => {
    expect(ev('"hello ${~ "world" }"')).toBe('helloworld');
    expect(ev('"%{ if true ~} hello %{~ endif }"')).toBe('hello');
    expect(ev('"${"hello" ~}${" world"}"')).toBe('hello world');
    expect(ev('"a ${~ "b" ~} c"')).toBe('abc');
    expect(ev('"[ ${ "x" } ]"')).toBe('[ x ]');
  });

  it('strips newlines too, but only within the one literal token next to the marker', () => {
    // A heredoc literal is split at each line end, so a marker reaches back or forward to the
    // nearest line end only: indentation before `%{~` is a literal of its own.
    expect(ev('<<EOT\ntrim\n${~"trim"~}\ntrim\nEOT\n')).toBe('trimtrimtrim\n');
    expect(ev('<<EOT\n  a\n  %{~ if true ~}\n  b\n  %{~ endif ~}\n  c\nEOT\n')).toBe('  a\n  b\n  c\n');
    expect(ev('<<EOT\n%{ for x in [1, 2] ~}\n${x}\n%{ endfor ~}\nEOT\n')).toBe('1\n2\n');
  });

  it('never strips into a neighbouring interpolation and never unwraps a stripped template', () => {
    expect(ev('"${"hello "}${~"trim"~}${" hello"}"')).toBe('hello trim hello');
    expect(ev('" ${~ true ~} "')).toBe('true');
    expect(ev('"%{ for v in ["a", "b"] ~} ${v} %{~ endfor }"')).toBe('ab');
    expect(ev('"%{ if true ~} %{~ if false ~} x %{~ else ~} y %{~ endif ~} %{~ endif }"')).toBe('y');
  });

  it('treats a dollar or percent sign before a sequence as literal text', () => {
    expect(ev('"hello $%{ if true }world%{ endif }"')).toBe('hello $world');
    expect(ev('"hello %${"world"}"')).toBe('hello %world');
  });
});

describe('conformance: template directives', () => {
  it('renders if/else/endif, with an empty else when it is left out', () => {
    expect(ev('"%{ if n > 1 }many%{ else }one%{ endif }"', { n: 2 })).toBe('many');
    expect(ev('"[%{ if false }x%{ endif }]"')).toBe('[]');
    expect(ev('"%{if "true"}yes%{endif}"')).toBe('yes');
  });

  it('renders for/endfor over sequences and, in key order, over objects', () => {
    expect(ev('"%{ for i, v in ["a", "b"] }${i}${v} %{ endfor }"')).toBe('0a 1b ');
    expect(ev('"%{ for k, v in {b = 2, a = 1} }${k}=${v};%{ endfor }"')).toBe('a=1;b=2;');
    expect(ev('"<%{ for v in [] }${v}%{ endfor }>"')).toBe('<>');
  });

  it('reports unbalanced and misplaced directives', () => {
    expect(problems('"%{ if true }a"')[0]).toMatch(/^Unexpected end of template; The if directive at .* is missing its corresponding endif directive\.$/);
    expect(problems('"%{ for x in [1] }a"')[0]).toMatch(/is missing its corresponding endfor directive/);
    expect(problems('"a%{ endif }"')[0]).toMatch(/^Unexpected endif directive;/);
    expect(problems('"%{ else }"')[0]).toMatch(/^Unexpected else directive;/);
    expect(problems('"%{ if true }a%{ else }b%{ else }c%{ endif }"')[0]).toMatch(/^Unexpected else directive; Already in the else clause for the if started at/);
    expect(problems('"%{ for x in [1] }a%{ else }b%{ endfor }"')[0]).toBe('Unexpected else directive; An else clause is not expected for a for directive.');
    expect(problems('"%{ if true }a%{ endfor }"')[0]).toMatch(/^Unexpected endfor directive; Expecting an endif directive/);
  });

  it('suggests the keyword meant by a misspelt directive', () => {
    expect(problems('"%{ iff true }x%{ endif }"')[0]).toMatch(/^Invalid template control keyword; "iff" is not a valid template control keyword\. Did you mean "if"\?/);
    // The endif then has no if to close, which is a second error.
    expect(problems('"%{ of true ~} hello %{~ endif}"')).toHaveLength(2);
  });

  it('refuses null and non-boolean directive conditions and a null for collection', () => {
    expect(problems('"%{ if null }x%{ endif }"')[0]).toMatch(/^Null condition;/);
    expect(problems('"%{ for x in null }x%{ endfor }"')[0]).toMatch(/^Iteration over null value;/);
  });
});

describe('conformance: heredocs', () => {
  it('keeps every line and its final newline, with no escapes', () => {
    expect(ev('<<EOT\nFoo\nBar\nEOT\n')).toBe('Foo\nBar\n');
    expect(ev('<<EOT\na\\tb "q"\nEOT\n')).toBe('a\\tb "q"\n');
    expect(ev('<<EOT\n$${x} %%{y}\nEOT\n')).toBe('${x} %{y}\n');
    expect(ev('<<EOT\nEOT\n')).toBe('');
  });

  it('interpolates and runs directives', () => {
    expect(ev('<<EOT\nFoo\n${bar}\nBaz\nEOT\n', { bar: 'Bar' })).toBe('Foo\nBar\nBaz\n');
    expect(ev('<<EOT\n%{for x in xs}${x}%{endfor}\nEOT\n', { xs: ['a', 'b'] })).toBe('ab\n');
  });

  it('ends only at the marker alone on its line, which may be indented', () => {
    expect(ev('<<EOT\nnot EOT\nEOTX\n  EOT\n')).toBe('not EOT\nEOTX\n');
    expect(ev('[\n  <<EOT\n  Foo\n  Bar\n  EOT\n]\n')).toEqual(['  Foo\n  Bar\n']);
  });

  it('removes the smallest indentation with <<-, ignoring blank lines', () => {
    expect(ev('[\n  <<-EOT\n  Foo\n  Bar\n  EOT\n]\n')).toEqual(['Foo\nBar\n']);
    expect(ev('[\n  <<-EOT\n  Foo\n    Bar\n  EOT\n]\n')).toEqual(['Foo\n  Bar\n']);
    expect(ev('[\n  <<-EOT\n    Foo\n  Bar\n    Baz\n  EOT\n]\n')).toEqual(['  Foo\nBar\n  Baz\n']);
    expect(ev('[\n  <<-EOT\n  Foo\n\n  Bar\n  EOT\n]\n')).toEqual(['Foo\n\nBar\n']);
  });

  it('counts the literal indentation before an interpolation, not the interpolated value', () => {
    expect(ev('[\n  <<-EOT\n    Foo\n  ${bar}\n    Baz\n    EOT\n]\n', { bar: '  Bar' })).toEqual(['  Foo\n  Bar\n  Baz\n']);
    expect(ev('<<-EOT\n    a\n${b}\n    c\nEOT\n', { b: 'B' })).toBe('    a\nB\n    c\n');
  });

  it('counts a tab as one column of indentation', () => {
    expect(ev('<<-EOT\n\tFoo\n  Bar\nEOT\n')).toBe('Foo\n Bar\n');
  });

  it('reports a heredoc with no end marker', () => {
    expect(problems('<<EOT\nfoo\n')[0]).toMatch(/^Unterminated template string;/);
  });
});
