import { describe, expect, it } from 'vitest';
import { checkType } from './attr-types.js';

describe('checkType for maps', () => {
  it('keeps every key as data, __proto__ and constructor included, in order, without touching a prototype', () => {
    const value = JSON.parse('{"x-a":"1","__proto__":"2","constructor":3,"toString":["4","5"]}') as Record<string, unknown>;
    const checked = checkType(value as never, 'modifierMap');
    expect(checked.ok).toBe(true);
    const out = (checked as { value: Record<string, unknown> }).value;
    expect(Object.keys(out)).toEqual(['x-a', '__proto__', 'constructor', 'toString']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')).toEqual({ value: '2', enumerable: true, writable: true, configurable: true });
    expect(out['constructor']).toBe('3');
    expect(out['toString']).toEqual(['4', '5']);
    expect(({} as Record<string, unknown>)['x-a']).toBeUndefined();
  });

  it('names the element that has the wrong type', () => {
    expect(checkType({ a: 'x', b: { c: 1 } } as never, 'stringMap')).toEqual({ ok: false, kind: 'type', problem: 'element "b": string required' });
  });
});
