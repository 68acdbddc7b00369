import { describe, expect, it } from 'vitest';
import { evaluateSource, evaluateSourceValue, HclNumber } from './index.js';
import { evalErrors } from './testing/hcl-errors.js';

// Behaviour of operators, conversions and conditionals as the upstream native syntax
// specification (hclsyntax/spec.md) and its reference implementation define them.

const ev = (src: string, vars: Record<string, unknown> = {}): unknown => evaluateSource(src, vars);
/** Only "summary; detail" of each diagnostic, for cases where the text is what matters. */
const problems = (src: string, vars: Record<string, unknown> = {}): string[] => evalErrors(src, vars).map((e) => e.replace(/^[^:]+:[^:]+: /, ''));

describe('conformance: arithmetic', () => {
  it('computes with the usual operators, % keeping the sign of the dividend', () => {
    expect(ev('(7 + 4) * 2 - 3')).toBe(19);
    expect(ev('17 % 5')).toBe(2);
    expect(ev('-17 % 5')).toBe(-2);
    expect(ev('17 % -5')).toBe(2);
    expect(ev('9 / 2')).toBe(4.5);
    expect(ev('5.5 % 2')).toBe(1.5);
  });

  it('works in arbitrary precision', () => {
    const big = evaluateSourceValue('12345678901234567890 * 10 + 1') as HclNumber;
    expect(big.toString()).toBe('123456789012345678901');
    expect((evaluateSourceValue('0.1 + 0.2') as HclNumber).toString()).toBe('0.3');
  });

  it('divides by zero to infinity but refuses 0/0 and modulo by zero', () => {
    expect(ev('4 / 0')).toBe(Infinity);
    expect(ev('-4 / 0')).toBe(-Infinity);
    expect(problems('0 / 0')[0]).toMatch(/^Operation failed; Error during operation:/);
    expect(problems('3 % 0')[0]).toMatch(/^Operation failed; Error during operation:/);
  });

  it('converts numeric strings to numbers and rejects other strings', () => {
    expect(ev('"12" + 3')).toBe(15);
    expect(ev('"1.5e1" * 2')).toBe(30);
    expect(ev('-"4"')).toBe(-4);
    expect(problems('"twelve" + 3')).toEqual(['Invalid operand; Unsuitable value for left operand: a number is required.']);
  });

  it('refuses booleans and collections as numbers, reporting each bad operand', () => {
    expect(problems('8 + true')).toEqual(['Invalid operand; Unsuitable value for right operand: number required.']);
    expect(problems('false + true')).toHaveLength(2);
    expect(problems('[1] * 2')).toHaveLength(1);
  });

  it('refuses null operands', () => {
    expect(problems('null + 1')[0]).toMatch(/argument must not be null/);
    expect(problems('-n', { n: null })[0]).toMatch(/argument must not be null/);
  });
});

describe('conformance: operator precedence', () => {
  it('binds * / % over + - over comparisons over == != over && over ||', () => {
    expect(ev('2 * 5 + 1')).toBe(11);
    expect(ev('1 + 2 * 3 - 4 / 2')).toBe(5);
    expect(ev('1 + 2 < 4')).toBe(true);
    expect(ev('1 < 2 == 3 < 4')).toBe(true);
    expect(ev('true || false && false')).toBe(true);
    expect(ev('false && true == false')).toBe(false);
  });

  it('associates left to right within a level', () => {
    expect(ev('24 / 4 * 3')).toBe(18);
    expect(ev('10 - 3 - 2')).toBe(5);
    expect(ev('10 % 4 * 3')).toBe(6);
  });

  it('gives unary operators the highest precedence', () => {
    expect(ev('-2 * 3')).toBe(-6);
    expect(ev('-3 + 5')).toBe(2);
    expect(ev('!true == false')).toBe(true);
    expect(ev('1 - -1')).toBe(2);
    expect(ev('!!true')).toBe(true);
    expect(ev('- - 3')).toBe(3);
  });

  it('parses the conditional loosest of all and nests it to the right', () => {
    expect(ev('1 + 1 == 2 ? "y" : "n"')).toBe('y');
    expect(ev('false ? 1 : true ? 2 : 3')).toBe(2);
    expect(ev('true ? false ? 1 : 2 : 3')).toBe(2);
  });
});

describe('conformance: comparison and logic', () => {
  it('compares for equality by type and value, never converting', () => {
    expect(ev('5 == 5')).toBe(true);
    expect(ev('1 == true')).toBe(false);
    expect(ev('"true" == true')).toBe(false);
    expect(ev('"1" == 1')).toBe(false);
    expect(ev('true != "true"')).toBe(true);
    expect(ev('[1, "a"] == [1, "a"]')).toBe(true);
    expect(ev('{a = 1} == {a = 1}')).toBe(true);
    expect(ev('{a = 1} != {a = 2}')).toBe(true);
  });

  it('treats every null as equal to null and to nothing else', () => {
    expect(ev('null == null')).toBe(true);
    expect(ev('n == null', { n: null })).toBe(true);
    expect(ev('"" == null')).toBe(false);
    expect(ev('0 != null')).toBe(true);
  });

  it('orders numbers, converting numeric strings', () => {
    expect(ev('2 < 10')).toBe(true);
    expect(ev('"2" < "10"')).toBe(true);
    expect(ev('3 >= 3 && 3 <= 3')).toBe(true);
    expect(problems('"a" < 1')).toHaveLength(1);
  });

  it('needs booleans for logic, accepting "true" and "false" strings', () => {
    expect(ev('"true" && true')).toBe(true);
    expect(ev('!"false"')).toBe(true);
    expect(problems('1 && true')).toEqual(['Invalid operand; Unsuitable value for left operand: bool required.']);
    expect(problems('"yes" || true')[0]).toMatch(/a bool is required/);
  });

  it('short-circuits && and ||, dropping the errors of the side that did not decide', () => {
    expect(ev('false && missing.thing')).toBe(false);
    expect(ev('true || 1 / 0 > "x"')).toBe(true);
    // Either side can decide, so an error on the other side is dropped too.
    expect(ev('missing || true')).toBe(true);
    expect(ev('n || true', { n: null })).toBe(true);
    expect(problems('n && true', { n: null })[0]).toMatch(/argument must not be null/);
  });

  it('still type-checks both operands of && and ||', () => {
    expect(problems('false && 5')).toEqual(['Invalid operand; Unsuitable value for right operand: bool required.']);
    expect(problems('true || "maybe"')).toEqual(['Invalid operand; Unsuitable value for right operand: a bool is required.']);
  });
});

describe('conformance: conditional expressions', () => {
  it('selects a branch by a boolean predicate', () => {
    expect(ev('true ? "a" : "b"')).toBe('a');
    expect(ev('"false" ? "a" : "b"')).toBe('b');
  });

  it('reports errors only from the branch that is selected', () => {
    expect(ev('false ? nope : 1')).toBe(1);
    expect(ev('length(xs) > 0 ? xs[0] : "none"', { xs: [] })).toBe('none');
    expect(problems('true ? nope : 1')[0]).toMatch(/^Unknown variable;/);
  });

  it('converts both results to their unified type', () => {
    expect(ev('true ? 1 : "two"')).toBe('1');
    expect(ev('false ? "x" : true')).toBe('true');
    expect(ev('true ? ["a", "b"] : null')).toEqual(['a', 'b']);
    expect(ev('false ? ["a", "b"] : null')).toBe(null);
    expect(ev('true ? {a = 1} : {b = 2}')).toEqual({ a: 1 });
    // A null takes the other result's type; a null variable too.
    expect(ev('true ? n : 5', { n: null })).toBe(null);
  });

  it('reports results that cannot be unified, over both results, before looking at the condition', () => {
    expect(evalErrors('true ? 1 : [1]')).toEqual([
      "e:1,8-15: Inconsistent conditional result types; The true and false result expressions must have consistent types. The 'true' value is number, but the 'false' value is tuple.",
    ]);
    expect(problems('null ? 1 : [1]')).toHaveLength(1);
    expect(problems('null ? 1 : [1]')[0]).toMatch(/^Inconsistent conditional result types;/);
    expect(problems('false ? {a = 1} : "s"')).toHaveLength(1);
  });

  it('explains which part of two structural results differs', () => {
    const why = (src: string): string => (problems(src)[0] ?? '').replace(/^[^;]+; The true and false result expressions must have consistent types\. /, '');
    expect(why('true ? {a = 1, b = [1]} : {a = 1, b = "x"}')).toBe(`Type mismatch for object attribute "b": The 'true' value is tuple, but the 'false' value is string.`);
    expect(ev('true ? [1, 2] : [3]')).toEqual([1, 2]);
    expect(why('true ? [1, {}] : ["x"]')).toBe(`The 'true' tuple has length 2, but the 'false' tuple has length 1.`);
    expect(why('true ? [1, {}] : [1, "x"]')).toBe(`Type mismatch for tuple element 1: The 'true' value is object, but the 'false' value is string.`);
  });

  it('refuses null and non-boolean predicates', () => {
    expect(problems('null ? 1 : 2')).toEqual(['Null condition; The condition value is null. Conditions must either be true or false.']);
    expect(problems('1 ? 1 : 2')[0]).toMatch(/^Incorrect condition type; The condition expression must be of type bool/);
    expect(problems('"maybe" ? 1 : 2')).toHaveLength(1);
  });
});

describe('conformance: number literals and formatting', () => {
  it('reads integers, fractions and exponents', () => {
    expect(ev('1e3')).toBe(1000);
    expect(ev('2.5E-1')).toBe(0.25);
    expect(ev('1e+2')).toBe(100);
    expect(ev('007')).toBe(7);
  });

  it('prints numbers as plain decimals in templates', () => {
    expect(ev('"=${1e21}"')).toBe('=1000000000000000000000');
    expect(ev('"=${1.50}"')).toBe('=1.5');
    expect(ev('"=${-0.000001}"')).toBe('=-0.000001');
    expect(ev('"=${2/4}"')).toBe('=0.5');
    expect(ev('"=${100 * 1.1}"')).toBe('=110');
    expect(ev('"=${n}"', { n: 1e-7 })).toBe('=0.0000001');
    // A template that is only one interpolation yields the number itself.
    expect(ev('"${1e21}"')).toBe(1e21);
  });

  it('does not take a trailing dot or a bare exponent marker into the number', () => {
    expect(problems('1.')).toHaveLength(1);
    expect(problems('1e')).toHaveLength(1);
  });
});
