import { describe, expect, it } from 'vitest';
import { sortViews } from './sort-views';

describe('sortViews', () => {
  it('orders by `order`, then title', () => {
    const sorted = sortViews([
      { path: '/jobs', title: 'Jobs', order: 50 },
      { path: '/status', title: 'Status', order: 10 },
      { path: '/config', title: 'Config', order: 50 },
    ]);
    expect(sorted.map((v) => v.path)).toEqual(['/status', '/config', '/jobs']);
  });

  it('refuses two views on one path', () => {
    expect(() => sortViews([
      { path: '/status', title: 'A', order: 1 },
      { path: '/status', title: 'B', order: 2 },
    ])).toThrow(/\/status/);
  });
});
