import { describe, expect, it } from 'vitest';
import { definePlainFunction, evaluateSource } from '../index.js';
import { evalErrors } from '../testing/hcl-errors.js';

const ev = (src: string, vars: Record<string, unknown> = {}): unknown => evaluateSource(src, vars);

describe('function library', () => {
  it('encodes and decodes', () => {
    expect(ev('base64_encode("héllo")')).toBe('aMOpbGxv');
    expect(ev('base64_decode("aMOpbGxv")')).toBe('héllo');
    expect(ev('json_encode({b = [1, null], a = "<&>"})')).toBe('{"a":"\\u003c\\u0026\\u003e","b":[1,null]}');
    expect(ev('json_decode("{\\"a\\": [1, true, null]}")')).toEqual({ a: [1, true, null] });
    expect(ev('"${json_decode("12345678901234567890123")}"')).toBe(12345678901234567890123);
    expect(ev('url_encode("a b/c~!")')).toBe('a%20b%2Fc~%21');
  });

  it('works on strings', () => {
    expect(ev('to_upper("abc")')).toBe('ABC');
    expect(ev('to_lower("ÄB")')).toBe('äb');
    expect(ev('split(",", "a,,b")')).toEqual(['a', '', 'b']);
    expect(ev('substr("hello world", 1, 4)')).toBe('ello');
    expect(ev('substr("hello", -3, -1)')).toBe('llo');
    expect(ev('relative_url("https://example.com/a/b?q=1#f")')).toBe('/a/b?q=1#f');
    expect(ev('relative_url("//host/p")')).toBe('/p');
  });

  it('works on collections', () => {
    expect(ev('contains(["a", 1], 1)')).toBe(true);
    expect(ev('default(null, "", "x", "y")')).toBe('x');
    expect(ev('default(null, "")')).toBe('');
    expect(ev('join("-", ["a", "b"], ["c"])')).toBe('a-b-c');
    expect(ev('keys({b = 1, a = 2})')).toEqual(['a', 'b']);
    expect(ev('length([1, 2, 3])')).toBe(3);
    expect(ev('length(m)', { m: new Map([['a', '1']]) })).toBe(1);
    expect(ev('lookup({a = 1}, "b", 5)')).toBe(5);
    expect(ev('lookup({a = 1}, "a", 5)')).toBe(1);
    expect(ev('merge({a = 1, b = {c = 1}}, null, {b = {d = 2}, a = null})')).toEqual({ b: { c: 1, d: 2 } });
    expect(ev('merge([1], [2])')).toEqual([1, 2]);
    expect(ev('merge()')).toBeNull();
    expect(ev('set_intersection(["a", "b", "c"], ["b", "c", "d"], ["c", "b"])')).toEqual(['b', 'c']);
    expect(ev('to_number("1.5")')).toBe(1.5);
    expect(typeof ev('unixtime()')).toBe('number');
  });

  it('checks argument counts and types, naming the function and parameter', () => {
    expect(evalErrors('substr("a", 1)')).toEqual(['e:1,14-15: Not enough function arguments; Function "substr" expects 3 argument(s). Missing value for "length".']);
    expect(evalErrors('to_upper("a", "b")')).toEqual(['e:1,16-17: Too many function arguments; Function "to_upper" expects only 1 argument(s).']);
    // Like upstream, an argument error points at the argument's start (its opening bracket, a string's text).
    expect(evalErrors('to_upper([1])')).toEqual(['e:1,10-11: Invalid function argument; Invalid value for "str" parameter: string required.']);
    expect(evalErrors('to_upper(null)')).toEqual(['e:1,10-14: Invalid function argument; Invalid value for "str" parameter: argument must not be null.']);
    expect(evalErrors('length({a = 1})')).toEqual(['e:1,8-9: Invalid function argument; Invalid value for "collection" parameter: collection must be a list, a map or a tuple.']);
    expect(evalErrors('to_number("x")')).toEqual(['e:1,12-13: Invalid function argument; Invalid value for "num" parameter: cannot convert "x" to number; given string must be a decimal representation of a number.']);
    expect(evalErrors('relative_url("x")')[0]).toContain('Invalid value for "s" parameter: invalid url given');
    expect(evalErrors('nope(1)')).toEqual(['e:1,1-5: Call to unknown function; There is no function named "nope".']);
    expect(evalErrors('jwt_sign("a", {})')).toEqual(['e:1,1-9: Call to unknown function; There is no function named "jwt_sign".']);
  });

  it('expands a final argument with ...', () => {
    expect(ev('join(",", ["a"], xs...)', { xs: [['b'], ['c']] })).toBe('a,b,c');
  });

  it('accepts runtime functions from the caller next to the library', () => {
    const functions = { jwt_sign: definePlainFunction({ params: [{ name: 'label', type: 'string' }, { name: 'claims', type: 'dynamic' }], impl: ([label]) => `token-for-${String(label)}` }) };
    expect(evaluateSource('jwt_sign("p", {}) == "token-for-p" && length([1]) == 1', {}, functions)).toBe(true);
  });
});
