import { describe, expect, it } from 'vitest';
import { evaluate, evaluateSource, parse } from './index.js';
import { evalErrors } from './testing/hcl-errors.js';

const vars = { list: [{ id: 1, n: 'a' }, { id: 2, n: 'b' }], obj: { id: 7, tags: ['x', 'y'] }, nums: [3, 1, 2], k: 'dyn', s: 'str', nothing: null };
const ev = (src: string): unknown => evaluateSource(src, vars);

describe('evaluate: expressions', () => {
  it('builds tuples and objects with every key form', () => {
    expect(ev('[1, "two", true, null,]')).toEqual([1, 'two', true, null]);
    expect(ev('{a = 1, "b c": 2, (k) = 3, null = 4}')).toEqual({ a: 1, 'b c': 2, dyn: 3, null: 4 });
  });

  it('reads variables with attribute, index and legacy index access', () => {
    expect(ev('obj.tags[1]')).toBe('y');
    expect(ev('list.0.n')).toBe('a');
    expect(ev('obj["id"]')).toBe(7);
    expect(ev('list[0 + 1].id')).toBe(2);
  });

  it('splats lists, single values and null', () => {
    expect(ev('list[*].id')).toEqual([1, 2]);
    expect(ev('list.*.id')).toEqual([1, 2]);
    expect(ev('list.*.n[0]')).toBe('a');
    expect(ev('obj.*.id')).toEqual([7]);
    expect(ev('nothing[*]')).toEqual([]);
    expect(ev('s.*')).toEqual(['str']);
  });

  it('evaluates for expressions with filters and grouping', () => {
    expect(ev('[for v in nums: v * 2 if v > 1]')).toEqual([6, 4]);
    expect(ev('{for i, v in ["a", "b"]: v => i}')).toEqual({ a: 0, b: 1 });
    expect(ev('{for i, v in ["a", "a", "b"]: v => i...}')).toEqual({ a: [0, 1], b: [2] });
    expect(ev('[for k, v in {b = 1, a = 2}: "${k}${v}"]')).toEqual(['a2', 'b1']);
  });

  it('applies arithmetic, comparison and logic with upstream conversions', () => {
    expect(ev('"1" + 1')).toBe(2);
    expect(ev('-1 + 2 * 3 % 4')).toBe(1);
    expect(ev('1 < 2 && 2 >= 2 || false')).toBe(true);
    expect(ev('!true')).toBe(false);
    expect(ev('"true" && true')).toBe(true);
    expect(ev('1 == "1"')).toBe(false);
    expect(ev('null == null')).toBe(true);
    expect(ev('[1, 2] == [1, 2]')).toBe(true);
  });

  it('short-circuits && and ||', () => {
    expect(ev('false && undefined_var')).toBe(false);
    expect(ev('true || undefined_var')).toBe(true);
  });

  it('unifies conditional result types and only reports the chosen branch', () => {
    expect(ev('true ? 1 : "a"')).toBe('1');
    expect(ev('false ? nope.x : 2')).toBe(2);
    expect(ev('true ? null : 1')).toBeNull();
  });

  it('evaluates parsed attribute expressions', () => {
    const { body } = parse('x = base + 1\n', 'f');
    const attr = body.attributes['x'];
    expect(attr && evaluate(attr.expr, { base: 41 })).toBe(42);
  });
});

describe('evaluate: errors', () => {
  it('reports type errors of operands at the operand', () => {
    expect(evalErrors('"a" + 1')).toEqual(['e:1,1-4: Invalid operand; Unsuitable value for left operand: a number is required.']);
    expect(evalErrors('1 + true')).toEqual(['e:1,5-9: Invalid operand; Unsuitable value for right operand: number required.']);
    expect(evalErrors('null + 1')).toEqual(['e:1,1-9: Operation failed; Error during operation: argument must not be null.']);
  });

  it('reports unknown variables, attributes and bad indexes', () => {
    expect(evalErrors('nope')).toEqual(['e:1,1-5: Unknown variable; There is no variable named "nope".']);
    expect(evalErrors('obj.nme', vars)).toEqual(['e:1,4-8: Unsupported attribute; This object does not have an attribute named "nme".']);
    expect(evalErrors('obj.tags[5]', vars)).toEqual(['e:1,9-12: Invalid index; The given key does not identify an element in this collection value: the given index is greater than or equal to the length of the collection.']);
    expect(evalErrors('s.x', vars)).toEqual(["e:1,2-4: Unsupported attribute; Can't access attributes on a primitive-typed value (string)."]);
    expect(evalErrors('nothing.x', vars)).toEqual(['e:1,8-10: Attempt to get attribute from null value; This value is null, so it does not have any attributes.']);
  });

  it('collects independent errors', () => {
    expect(evalErrors('[a, b]')).toHaveLength(2);
  });

  it('reports conditions, for expressions and duplicate keys', () => {
    expect(evalErrors('1 ? 2 : 3')).toEqual(['e:1,1-2: Incorrect condition type; The condition expression must be of type bool.']);
    expect(evalErrors('[for v in 5: v]')).toEqual(["e:1,11-12: Iteration over non-iterable value; A value of type number cannot be used as the collection in a 'for' expression."]);
    expect(evalErrors('{for v in ["a", "a"]: v => 1}')).toEqual([
      'e:1,23-24: Duplicate object key; Two different items produced the key "a" in this \'for\' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key.',
    ]);
    expect(evalErrors('true ? 1 : false')).toEqual(["e:1,8-17: Inconsistent conditional result types; The true and false result expressions must have consistent types. The 'true' value is number, but the 'false' value is bool."]);
  });

  it('reports syntax errors from evaluateSource', () => {
    expect(evalErrors('1 +')).toEqual(['e:1,4-4: Missing expression; Expected the start of an expression, but found the end of the file.']);
    expect(evalErrors('1 2')).toEqual(['e:1,3-4: Extra characters after expression; An expression was successfully parsed, but extra characters were found after it.']);
  });
});
