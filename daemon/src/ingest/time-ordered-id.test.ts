import { describe, expect, it } from 'vitest';
import { timeOrderedId } from './time-ordered-id.js';

describe('time-ordered ids for outbox rows and attempts', () => {
  it('are UUID version 7 with the time in their first 48 bits', () => {
    const id = timeOrderedId(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  });

  it('sort by creation time and never repeat', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => timeOrderedId(1_700_000_000_000 + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(ids.length);
    const byTime = ids.map((id, i) => ({ id, ms: Math.floor(i / 10) }));
    const sorted = [...byTime].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(sorted.map((x) => x.ms)).toEqual(byTime.map((x) => x.ms));
  });

  it('made within one millisecond, sort in the order they were made', () => {
    const ids = Array.from({ length: 2000 }, () => timeOrderedId(1_700_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('made for two interleaved clocks (attempt start times, finish times), sort in order within each millisecond', () => {
    const ids = Array.from({ length: 400 }, (_, i) => ({ ms: 1_800_000_000_000 + (i % 2) * 5, id: timeOrderedId(1_800_000_000_000 + (i % 2) * 5) }));
    for (const ms of [1_800_000_000_000, 1_800_000_000_005]) {
      const own = ids.filter((x) => x.ms === ms).map((x) => x.id);
      expect([...own].sort()).toEqual(own);
      for (const id of own) expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(ms);
    }
  });
});
