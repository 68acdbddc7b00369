import { describe, expect, it } from 'vitest';
import { evaluateSource, formatDiagnostic, HclError, standardFunctions, type FunctionTable, type HclFunction } from './index.js';
import { evalErrors } from './testing/hcl-errors.js';

// Tuples, objects, for expressions, splats, index and attribute access, as the upstream
// specification and reference implementation define them.

const ev = (src: string, vars: Record<string, unknown> = {}): unknown => evaluateSource(src, vars);
const problems = (src: string, vars: Record<string, unknown> = {}): string[] => evalErrors(src, vars).map((e) => e.replace(/^[^:]+:[^:]+: /, ''));

function problemsWith(src: string, functions: FunctionTable): string[] {
  try {
    evaluateSource(src, {}, functions);
    return [];
  } catch (error) {
    if (!(error instanceof HclError)) throw error;
    return error.diagnostics.map((d) => formatDiagnostic(d).replace(/^[^:]+:[^:]+: /, ''));
  }
}

describe('conformance: collection constructors', () => {
  it('accepts a trailing comma and newlines between items', () => {
    expect(ev('[1,]')).toEqual([1]);
    expect(ev('[\n  1,\n  true\n]')).toEqual([1, true]);
    expect(ev('{\n  a = 1,\n  b = 2,\n}')).toEqual({ a: 1, b: 2 });
    expect(ev('{\n  a = 1\n  b = 2\n}')).toEqual({ a: 1, b: 2 });
  });

  it('reads bare keys, keywords and numbers as literal names', () => {
    expect(ev('{true: "t", false = "f", null: "n", 15: "x"}')).toEqual({ true: 't', false: 'f', null: 'n', 15: 'x' });
    expect(ev('{"a.b-c" = 1, hello: 2}')).toEqual({ 'a.b-c': 1, hello: 2 });
  });

  it('evaluates parenthesised and template keys', () => {
    expect(ev('{(k) = 1, "${k}2" = 2}', { k: 'key' })).toEqual({ key: 1, key2: 2 });
    expect(ev('{(1 + 1) = "two"}')).toEqual({ 2: 'two' });
  });

  it('refuses a dotted bare key, which could be a reference or a name', () => {
    expect(problems('{a.b = 1}', { a: { b: 'x' } })[0]).toMatch(/^Ambiguous attribute key; If this expression is intended to be a reference, wrap it in parentheses/);
  });

  it('refuses keys that are not strings, and null keys', () => {
    expect(problems('{[]: "v"}')[0]).toMatch(/^Incorrect key type; Can't use this value as a key:/);
    expect(problems('{(n) = 1}', { n: null })[0]).toMatch(/^Null value as key;/);
  });

  it('reports a bare key with a legacy index in it as a syntax error', () => {
    expect(problems('{centos_7.2_ap = "x"}')[0]).toMatch(/^Missing key\/value separator;/);
    // Without anything after the index the key is a reference, which is ambiguous.
    expect(problems('{centos_7.2 = "x"}', { centos_7: [1, 2, 3] })[0]).toMatch(/^Ambiguous attribute key;/);
  });

  it('gives the for keyword priority over a first element named for', () => {
    expect(problems('[for, a]').length).toBeGreaterThan(0);
    expect(ev('[(for), 2]', { for: 1 })).toEqual([1, 2]);
    expect(ev('{"for" = 1, b = 2}')).toEqual({ for: 1, b: 2 });
    expect(ev('{b = 2, for = 1}')).toEqual({ b: 2, for: 1 });
  });
});

describe('conformance: for expressions', () => {
  it('projects tuples and objects, with index or key variables', () => {
    expect(ev('[for v in ["a", "b"]: v]')).toEqual(['a', 'b']);
    expect(ev('[for i, v in ["a", "b"]: i]')).toEqual([0, 1]);
    expect(ev('{for i, v in ["a", "b"]: v => i}')).toEqual({ a: 0, b: 1 });
    expect(ev('{for k, v in ["world"]: k => v if k == 0}')).toEqual({ 0: 'world' });
    expect(ev('[for k, v in {hello = "world"}: "${k}=${v}"]')).toEqual(['hello=world']);
  });

  it('visits object keys in lexical order', () => {
    expect(ev('[for k, v in {b = 1, a = 2, c = 3}: k]')).toEqual(['a', 'b', 'c']);
    expect(ev('[for v in {b = 1, a = 2}: v]')).toEqual([2, 1]);
  });

  it('filters with an if clause', () => {
    expect(ev('[for i, v in ["a", "b", "c"]: v if i < 2]')).toEqual(['a', 'b']);
    expect(ev('{for k, v in {hello = "world"}: k => v if k == "foo"}')).toEqual({});
  });

  it('groups values under duplicate keys with the ellipsis', () => {
    expect(ev('{for i, v in ["a", "a", "b"]: v => i...}')).toEqual({ a: [0, 1], b: [2] });
    expect(ev('{for i, v in ["a", "b", "c", "b", "d"]: v => i... if i <= 2}')).toEqual({ a: [0], b: [1], c: [2] });
  });

  it('reports duplicate keys without grouping', () => {
    expect(problems('{for i, v in ["a", "a", "b"]: v => i}')).toEqual([
      `Duplicate object key; Two different items produced the key "a" in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key.`,
    ]);
  });

  it('reports key expressions in tuple fors, missing keys in object fors and grouping in tuples', () => {
    expect(problems('[for k, v in {a = 1}: k => v]')[0]).toMatch(/^Invalid 'for' expression; Key expression is not valid when building a tuple\./);
    expect(problems('{for v in {a = 1}: v}')[0]).toMatch(/^Invalid 'for' expression; Key expression is required when building an object\./);
    expect(problems('[for v in {a = 1}: v...]')[0]).toMatch(/^Invalid 'for' expression; Grouping ellipsis \(\.\.\.\) cannot be used when building a tuple\./);
  });

  it('refuses to iterate strings and null', () => {
    expect(problems('[for v in "hello": v]')[0]).toMatch(/^Iteration over non-iterable value; A value of type string cannot be used as the collection in a 'for' expression\./);
    expect(problems('[for v in null: v]')[0]).toMatch(/^Iteration over null value;/);
  });

  it('checks the if clause once before iterating, even over an empty collection', () => {
    expect(problems('[for v in ["a", "b"]: v if n]', { n: null })).toEqual(["Condition is null; The value of the 'if' clause must not be null."]);
    expect(problems('[for v in []: v if 5]')).toEqual(["Invalid 'for' condition; The 'if' clause value is invalid: bool required."]);
    expect(problems('[for v in ["a", "b", "c"]: v if nope]')).toEqual(['Unknown variable; There is no variable named "nope".']);
  });

  it('reports only the first bad if clause or key among the elements', () => {
    expect(problems('[for i, v in ["a", "b"]: v if i + i]')).toEqual(["Invalid 'for' condition; The 'if' clause value is invalid: bool required."]);
    expect(problems('[for v in [true, null, null]: v if v]')).toEqual(["Invalid 'for' condition; The value of the 'if' clause must not be null."]);
    expect(problems('{for v in [[1], [2]]: v => 1}')).toHaveLength(1);
  });

  it('does not evaluate the value when the key is unusable', () => {
    expect(problems('{for v in ["a"]: null => nope}')).toEqual(["Invalid object key; Key expression in 'for' expression must not produce a null value."]);
  });

  it('needs a string key', () => {
    expect(problems('{for k, v in {a = 1}: [] => v}')[0]).toMatch(/^Invalid object key;/);
    expect(problems('{for k, v in {a = 1}: null => v}')[0]).toMatch(/^Invalid object key;/);
  });

  it('scopes its variables to the expression, hiding outer ones', () => {
    expect(ev('[for x in [1, 2]: x * y]', { x: 100, y: 10 })).toEqual([10, 20]);
    expect(ev('[for x in [1]: [for x in [5]: x]]')).toEqual([[5]]);
  });
});

describe('conformance: splat operators', () => {
  const people = [{ name: 'Ann', tags: ['a1', 'a2'] }, { name: 'Bo', tags: ['b1'] }];

  it('collects an attribute from each element', () => {
    expect(ev('ps.*.name', { ps: people })).toEqual(['Ann', 'Bo']);
    expect(ev('ps[*].name', { ps: people })).toEqual(['Ann', 'Bo']);
    expect(ev('["x", "y"].*')).toEqual(['x', 'y']);
  });

  it('applies a trailing index to the whole result for .* but to each element for [*]', () => {
    expect(ev('ps.*.name[0]', { ps: people })).toBe('Ann');
    expect(ev('ps[*].tags[0]', { ps: people })).toEqual(['a1', 'b1']);
    expect(ev('[[{n = 1}], [{n = 2}]][*][0].n')).toEqual([1, 2]);
  });

  it('supports legacy indexes inside attribute-only splats', () => {
    expect(ev('[["hello"], ["world", "unused"]].*.0')).toEqual(['hello', 'world']);
    expect(ev('[[{n = "foo"}], [{n = "bar"}]].*.0.n')).toEqual(['foo', 'bar']);
  });

  it('nests full splats into nested tuples', () => {
    expect(ev('[[{n = 1}], [{n = 2}]][*][*].n')).toEqual([[1], [2]]);
  });

  it('wraps a single non-sequence value in a one-element tuple', () => {
    expect(ev('{name = "Steve"}.*.name')).toEqual(['Steve']);
    expect(ev('{name = "Steve"}[*].name')).toEqual(['Steve']);
    expect(ev('"hello".*')).toEqual(['hello']);
  });

  it('gives a list for a set source, and refuses elements of different types there', () => {
    expect(ev('s.*.n', { s: new Set([{ n: 1 }, { n: 2 }]) })).toEqual([1, 2]);
    expect(problems('s[*].n', { s: new Set([{ n: 1 }, { n: 'x' }]) })[0]).toMatch(/^Invalid nested splat expressions;/);
  });

  it('turns a null into an empty tuple', () => {
    expect(ev('n.*.name', { n: null })).toEqual([]);
    expect(ev('n[*]', { n: null })).toEqual([]);
  });

  it('refuses a nested attribute-only splat', () => {
    expect(problems('[["a"], ["b"]].*.*')[0]).toMatch(/^Nested splat expression not allowed;/);
  });

  it('refuses chained legacy indexes', () => {
    expect(problems('[[["x"]]].*.0.0')[0]).toMatch(/^Invalid legacy index syntax;.*\[\*\]/);
  });
});

describe('conformance: index and attribute access', () => {
  it('indexes sequences with numbers, converting numeric strings', () => {
    expect(ev('["hello"][0]')).toBe('hello');
    expect(ev('["hello"]["0"]')).toBe('hello');
    expect(ev('["hello"].0')).toBe('hello');
    expect(ev('[{greeting = "hi"}].0.greeting')).toBe('hi');
  });

  it('indexes objects with strings, converting booleans and numbers', () => {
    expect(ev('o["b"]', { o: { b: 1 } })).toBe(1);
    expect(ev('o[true]', { o: { true: 'yes' } })).toBe('yes');
    expect(ev('o[1]', { o: { 1: 'one' } })).toBe('one');
  });

  it('says why a sequence index is out of range', () => {
    const key = 'Invalid index; The given key does not identify an element in this collection value';
    expect(problems('[][0]')).toEqual([`${key}: the collection has no elements.`]);
    expect(problems('["a"][1]')).toEqual([`${key}: the given index is greater than or equal to the length of the collection.`]);
    expect(problems('["a"][-1]')).toEqual([`${key}: a negative number is not a valid index for a sequence.`]);
    expect(problems('["a"][3 / 2]')).toEqual([`${key}: indexing a sequence requires a whole number, but the given index has a fractional part.`]);
    expect(problems('["a"]["x"]')).toEqual([`${key}: a number is required.`]);
  });

  it('reports missing keys and attributes', () => {
    expect(problems('o.zzz', { o: { name: 1 } })).toEqual(['Unsupported attribute; This object does not have an attribute named "zzz".']);
    // Unlike unknown variables, attribute errors carry no suggestion upstream.
    expect(problems('o.nmae', { o: { name: 1 } })).toEqual(['Unsupported attribute; This object does not have an attribute named "nmae".']);
    expect(problems('m.nope', { m: new Map([['a', 1]]) })).toEqual(['Missing map element; This map does not have an element with the key "nope".']);
    expect(problems('o[0]', { o: { name: 1 } })[0]).toMatch(/An object only supports looking up attributes by name, not by numeric index\.$/);
    expect(problems('s[0]', { s: new Set([1]) })[0]).toMatch(/^Invalid index; Elements of a set are identified only by their value/);
    expect(problems('o["zzz"]', { o: { name: 1 } })[0]).toMatch(/^Invalid index; The given key does not identify an element in this collection value/);
  });

  it('reports access on null values', () => {
    expect(problems('n.a', { n: null })).toEqual(['Attempt to get attribute from null value; This value is null, so it does not have any attributes.']);
    expect(problems('n[0]', { n: null })).toEqual(['Attempt to index null value; This value is null, so it does not have any indices.']);
    expect(problems('[1][n]', { n: null })[0]).toMatch(/^Invalid index; Can't use a null value as an indexing key\./);
  });

  it('reports attributes of primitives and indexes of values that have none', () => {
    expect(problems('s.a', { s: 'str' })).toEqual(["Unsupported attribute; Can't access attributes on a primitive-typed value (string)."]);
    expect(problems('["boop"].foo')[0]).toMatch(/^Unsupported attribute; This value does not have any attributes\./);
    expect(problems('s[0]', { s: 'str' })[0]).toMatch(/^Invalid index; This value does not have any indices\./);
  });

  it('reports unknown variables, suggesting a close name', () => {
    expect(problems('bar')).toEqual(['Unknown variable; There is no variable named "bar".']);
    expect(problems('nmae', { name: 1 })).toEqual(['Unknown variable; There is no variable named "nmae". Did you mean "name"?']);
  });
});

describe('conformance: function calls', () => {
  it('expands a final argument with the ellipsis', () => {
    expect(ev('to_upper(["foo"]...)')).toBe('FOO');
    expect(ev('to_upper("foo", []...)')).toBe('FOO');
    expect(ev('join(",", [["a", "b"]]...)')).toBe('a,b');
    expect(ev('join([",", ["a", "b"]]...)')).toBe('a,b');
  });

  it('ignores newlines between the parentheses', () => {
    expect(ev('to_upper(\n  "foo"\n)')).toBe('FOO');
    expect(ev('join(\n",",\n["a", "b"]\n)')).toBe('a,b');
  });

  it('reports argument count problems and unknown functions', () => {
    expect(problems('to_upper("a", "b")')[0]).toMatch(/^Too many function arguments; Function "to_upper" expects only 1 argument\(s\)\./);
    expect(problems('to_upper(["a", "b"]...)')[0]).toMatch(/^Too many function arguments;/);
    expect(problems('to_upper()')[0]).toMatch(/^Not enough function arguments;/);
    expect(problems('to_uper("a")')[0]).toMatch(/^Call to unknown function; There is no function named "to_uper"\. Did you mean "to_upper"\?/);
  });

  it('checks the argument count before evaluating the arguments', () => {
    expect(problems('to_upper(nope, 2)')).toEqual(['Too many function arguments; Function "to_upper" expects only 1 argument(s).']);
    expect(problems('join(",")')[0]).toMatch(/^Error in function call; Call to function "join" failed:/);
  });

  it('points argument errors at the start of the argument', () => {
    expect(evalErrors('to_upper([1])')[0]).toMatch(/^e:1,10-11: Invalid function argument; Invalid value for "str" parameter: string required\.$/);
    expect(evalErrors('to_upper(1, {a = 1})')[0]).toMatch(/^e:1,13-14: Too many function arguments;/);
  });

  it('reports only the first null argument', () => {
    expect(problems('substr(null, null, 1)')).toEqual(['Invalid function argument; Invalid value for "str" parameter: argument must not be null.']);
  });

  it('tells an unknown namespace from an unknown name in a namespace', () => {
    expect(problems('ns::f(1)')).toEqual(['Call to unknown function; There are no functions in namespace "ns::".']);
    const fns = { 'ns::upper': standardFunctions['to_upper'] as HclFunction };
    expect(problemsWith('ns::uper("a")', fns)).toEqual(['Call to unknown function; There is no function named "uper" in namespace ns::. Did you mean ns::upper?']);
    expect(evaluateSource('ns::upper("a")', {}, fns)).toBe('A');
  });

  it('keeps functions and variables in separate namespaces', () => {
    expect(ev('to_upper(to_upper)', { to_upper: 'x' })).toBe('X');
  });

  it('refuses a null or non-sequence expanded argument', () => {
    expect(problems('to_upper(n...)', { n: null })[0]).toMatch(/^Invalid expanding argument value;/);
    expect(problems('to_upper(5...)')[0]).toMatch(/^Invalid expanding argument value;/);
  });
});
