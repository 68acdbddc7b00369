import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { definePlainFunction, evaluateSource, type FunctionTable } from './index.js';

/** Bytes in use in the old generation (where what survives two scavenges ends up). */
function oldSpaceUsed(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;
}

describe("the caller's functions", () => {
  it('win over the standard library on a name clash and are listed in the unknown-function hint', () => {
    const extra: FunctionTable = { to_upper: definePlainFunction({ params: [], impl: () => 'mine' }), request_thing: definePlainFunction({ params: [], impl: () => 1 }) };
    expect(evaluateSource('to_upper()', {}, extra)).toBe('mine');
    expect(evaluateSource('to_lower("A")', {}, extra)).toBe('a');
    expect(() => evaluateSource('request_thin()', {}, extra)).toThrow(/Did you mean "request_thing"\?/);
  });

  // The gateway makes a table per request whose functions hold the request's scope. A table kept
  // per caller table in a WeakMap kept each request's objects through scavenges (V8's scavenger
  // holds a WeakMap's values strongly), so they were promoted: 2.6 MB per scavenge on a route
  // with one expression (docs/performance-log.md, "A twenty-third machine").
  it('are not kept after the evaluation: what a per-request table holds dies in a scavenge', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;
    const perRequest = (): FunctionTable => {
      // As in the gateway: the table's function holds a scope (about 160 KB of young objects) that holds the table.
      const scope: { held: Array<{ i: number; text: string }>; table: FunctionTable | null } = { held: Array.from({ length: 4000 }, (_, i) => ({ i, text: `value ${i}` })), table: null };
      scope.table = { held_count: definePlainFunction({ params: [], impl: () => scope.held.length }) };
      return scope.table;
    };
    // A first round compiles the evaluator's code (bytecode and feedback live in the old generation): not what is measured.
    for (let i = 0; i < 20; i++) expect(evaluateSource('held_count() + length([1, 2, 3])', {}, perRequest())).toBe(4003);
    gc({ type: 'major' });
    const before = oldSpaceUsed();
    for (let i = 0; i < 200; i++) expect(evaluateSource('held_count() + length([1, 2, 3])', {}, perRequest())).toBe(4003);
    // Two scavenges: anything still reachable is then in the old generation.
    gc({ type: 'minor' });
    gc({ type: 'minor' });
    // 200 tables of about 160 KB each would be 32 MB if they were kept (the evaluator of before kept
    // more); what else the test's process promotes meanwhile was 0.7-2.2 MB.
    const promoted = oldSpaceUsed() - before;
    expect(promoted).toBeLessThan(8 * 1024 * 1024);
  });
});
