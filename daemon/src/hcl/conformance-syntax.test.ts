import { describe, expect, it } from 'vitest';
import { evaluateSource, evaluateSourceValue, HclNumber } from './index.js';
import { evalErrors } from './testing/hcl-errors.js';

// Syntax errors inside expressions, and the upstream spec suite's operator, literal and
// heredoc fixtures (our own copies of their facts).

const ev = (src: string, vars: Record<string, unknown> = {}): unknown => evaluateSource(src, vars);
const summaries = (src: string, vars: Record<string, unknown> = {}): string[] => evalErrors(src, vars).map((e) => e.replace(/^[^:]+:[^:]+: /, '').split(';')[0] as string);

describe('conformance: expression syntax errors', () => {
  it('reports unclosed brackets and missing separators', () => {
    expect(summaries('[1, 2')).toEqual(['Unterminated tuple constructor expression']);
    expect(summaries('[1 2]')).toEqual(['Missing item separator']);
    expect(summaries('{a = 1')).toEqual(['Unterminated object constructor expression']);
    expect(summaries('{a 1}')).toEqual(['Missing key/value separator']);
    expect(summaries('(1 2)')).toEqual(['Unbalanced parentheses']);
    expect(summaries('(1')).toEqual(['Unbalanced parentheses']);
    expect(summaries('true true')).toEqual(['Extra characters after expression']);
  });

  it('reports malformed calls', () => {
    expect(summaries('join(",", ["a"]')).toEqual(['Unterminated function call']);
    expect(summaries('join("," "a")')).toEqual(['Missing argument separator']);
    // A bracket right after a term is an index, not a new argument.
    expect(summaries('join("," ["a"])')).toEqual(['Invalid index']);
    expect(summaries('join(xs..., ",")', { xs: [] })).toEqual(['Missing closing parenthesis']);
    expect(summaries('ns::(1)')).toEqual(['Missing function name']);
  });

  it('reports malformed traversals', () => {
    expect(summaries('a.', { a: {} })).toEqual(['Invalid attribute name']);
    expect(summaries('a[*', { a: [] })).toEqual(['Missing close bracket on splat index']);
    expect(summaries('a.0.1', { a: [[1, 2]] })).toEqual(['Invalid legacy index syntax']);
  });

  it('reports malformed conditionals and for expressions', () => {
    expect(summaries('true ? 1')).toEqual(['Missing false expression in conditional']);
    expect(summaries('[for x in xs]', { xs: [] })).toEqual(["Invalid 'for' expression"]);
    expect(summaries('[for x xs: x]', { xs: [] })).toEqual(["Invalid 'for' expression"]);
    expect(summaries('[for in xs: 1]', { xs: [] })).toEqual(["Invalid 'for' expression"]);
    expect(summaries('[for x in xs: x y]', { xs: [] })).toEqual(["Invalid 'for' expression"]);
  });

  it('reports an expression that ends too soon', () => {
    expect(evalErrors('1 +')).toEqual(['e:1,4-4: Missing expression; Expected the start of an expression, but found the end of the file.']);
  });
});

describe('conformance: spec suite operators and literals', () => {
  it('compares without converting between types', () => {
    expect(ev('["a" == "a", "a" == "b", "1" == 1, "true" == true]')).toEqual([true, false, false, false]);
    expect(ev('["a" != "a", "a" != "b", "1" != 1, "true" != true]')).toEqual([false, true, true, true]);
    expect(ev('[1 < 2, 2 < 1, 1 < 1, 1 <= 1, 1 > 1, 1 >= 1]')).toEqual([true, false, false, true, false, true]);
  });

  it('computes the arithmetic fixtures exactly', () => {
    const num = (src: string): string => (evaluateSourceValue(src) as HclNumber).toString();
    expect(num('2 + 3.5')).toBe('5.5');
    expect(num('3.14159265358979323846264338327950288419716939937510582097494459 + 1')).toBe('4.14159265358979323846264338327950288419716939937510582097494459');
    expect(num('2 - 3.5')).toBe('-1.5');
    expect(num('2 * 4.5')).toBe('9');
    expect(num('1 / 10')).toBe('0.1');
    expect(num('11 % 5')).toBe('1');
    // Upstream's binary floats give 0.8000000000000000002 here; decimals are exact (see README).
    expect(num('11 % 5.1')).toBe('0.8');
  });

  it('keeps strings as written, without Unicode normalisation', () => {
    expect(ev('"ЖЖ"')).toBe('ЖЖ');
    expect(ev('"👩👩👧👦"')).toBe('👩👩👧👦');
    expect(ev('"an\u0303os"')).toBe('an\u0303os');
  });
});

describe('conformance: spec suite heredocs', () => {
  it('keeps indentation in <<EOT, including before the end marker', () => {
    expect(ev('<<EOT\n    Foo\n      Bar\n    Baz\n  EOT\n')).toBe('    Foo\n      Bar\n    Baz\n');
    expect(ev('<<EOT\n    Foo\n    ${bar}\n    Baz\n  EOT\n', { bar: 'Bar' })).toBe('    Foo\n    Bar\n    Baz\n');
    expect(ev('<<EOT\n    NOT EOT\n  EOT\n')).toBe('    NOT EOT\n');
  });

  it('strips the common indentation in <<-EOT, counting Unicode spaces as one each', () => {
    expect(ev('<<-EOT\n    Foo\n      Bar\n    Baz\n  EOT\n')).toBe('Foo\n  Bar\nBaz\n');
    expect(ev('<<-EOT\n    Foo\n      ${bar}\n    Baz\n  EOT\n', { bar: 'Bar' })).toBe('Foo\n  Bar\nBaz\n');
    expect(ev('<<-EOT\n   \u2003\u2003Foo\n    Bar\n    Baz\n  EOT\n')).toBe('\u2003Foo\nBar\nBaz\n');
    expect(ev('<<-EOT\n    Foo\n\n    Bar\n\n    Baz\n  EOT\n')).toBe('Foo\n\nBar\n\nBaz\n');
  });
});
