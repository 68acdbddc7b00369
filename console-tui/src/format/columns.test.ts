import { describe, expect, it } from 'vitest';
import { layoutColumns, layoutLine, type ColumnSpec } from './columns.js';

const URL = 'https://orders.internal.example.com:8443/api/v2';
const BACKENDS: ColumnSpec[] = [
  { header: 'NAME', cells: ['users', 'orders'], grow: true, keep: 9 },
  { header: 'STATE', cells: ['● healthy', '✗ unhealthy'], keep: 8 },
  { header: 'LAST CHECK', cells: ['4s ago'], keep: 3 },
  { header: 'FAIL', cells: ['0'], keep: 2 },
  { header: 'LATENCY', cells: ['12 ms'], keep: 1 },
  { header: 'ORIGIN', cells: ['http://127.0.0.1:1', URL], grow: true, keep: 5 },
];

const total = (widths: number[], indent = 1, gap = 2): number => indent + widths.reduce((s, w) => s + w, 0) + gap * (widths.filter((w) => w > 0).length - 1);

describe('column layout', () => {
  it('gives the spare width to the text columns, so a URL reads in full at 120 columns', () => {
    const layout = layoutColumns(BACKENDS, 120);
    expect(layout.widths).toEqual([6, 11, 10, 4, 7, URL.length]);
    expect(layoutLine(layout, ['orders', '✗ unhealthy', '4s ago', '0', '12 ms', URL])).toContain(URL);
  });

  it('shares a narrow width fairly: a short name whole, the URL gets the rest', () => {
    const layout = layoutColumns(BACKENDS, 80);
    expect(layout.widths.slice(0, 5)).toEqual([6, 11, 10, 4, 7]);
    expect(total(layout.widths)).toBe(80);
    expect(layout.widths[5]).toBe(80 - 1 - 6 - 11 - 10 - 4 - 7 - 2 * 5);
  });

  it('splits the spare between two long text columns instead of giving it all to the first', () => {
    const layout = layoutColumns([{ header: 'A', cells: ['x'.repeat(60)], grow: true }, { header: 'B', cells: ['y'.repeat(60)], grow: true }], 61);
    expect(layout.widths).toEqual([29, 29]);
  });

  it('gives a rest column (an error message) only what the other text columns leave', () => {
    const node = 'edge-proxy-eu-west-1-az-b-0042';
    const layout = layoutColumns([{ header: 'NODE', cells: [node], grow: true }, { header: 'ERROR', cells: ['x'.repeat(200)], grow: true, rest: true }], 80);
    expect(layout.widths).toEqual([node.length, 80 - 1 - 2 - node.length]);
  });

  it('drops the least important columns first when even the minimums do not fit: the state outlives the id', () => {
    const keys: ColumnSpec[] = [
      { header: 'ID', cells: ['key_0123456789'], keep: 4 },
      { header: 'NAME', cells: ['mobile app'], grow: true, keep: 9 },
      { header: 'STATE', cells: ['revoked'], keep: 8 },
      { header: 'LAST USED', cells: ['2026-01-01 10:00'], keep: 1 },
    ];
    expect(layoutColumns(keys, 80).widths.every((w) => w > 0)).toBe(true);
    const narrow = layoutColumns(keys, 34);
    expect(narrow.widths[2]).toBeGreaterThan(0);
    expect(narrow.widths[0]).toBe(14);
    expect(narrow.widths[3]).toBe(0);
    const narrower = layoutColumns(keys, 24);
    expect(narrower.widths[0]).toBe(0);
    expect(narrower.widths[2]).toBe(7);
    expect(narrower.widths[1]).toBeGreaterThan(0);
    for (const w of [10, 24, 34, 50, 80]) expect(total(layoutColumns(keys, w).widths)).toBeLessThanOrEqual(w);
  });

  it('never lays out wider than the terminal, even for one column', () => {
    expect(layoutColumns([{ header: 'STATE', cells: ['● unhealthy'] }], 6).widths).toEqual([5]);
  });
});
