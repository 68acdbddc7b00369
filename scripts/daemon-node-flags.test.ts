import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { DAEMON_NODE_FLAGS, v8PoolSize } from './daemon-node-flags.mjs';

describe('the daemon Node flags', () => {
  it('give V8 one helper thread fewer than the cores, at least one and at most four', () => {
    expect([1, 2, 3, 4, 5, 8, 64].map(v8PoolSize)).toEqual([1, 1, 2, 3, 4, 4, 4]);
    expect(DAEMON_NODE_FLAGS).toContain(`--v8-pool-size=${v8PoolSize(availableParallelism())}`);
  });

  it('are the flags the service unit starts node with, the pool size written for 2 cores', () => {
    const unit = readFileSync(new URL('./portico.service', import.meta.url), 'utf8');
    const execStart = unit.split('\n').find((line) => line.startsWith('ExecStart='));
    const unitFlags = execStart?.split(' ').filter((word) => word.startsWith('--'));
    const expected = DAEMON_NODE_FLAGS.map((flag) => (flag.startsWith('--v8-pool-size=') ? `--v8-pool-size=${v8PoolSize(2)}` : flag));
    expect(unitFlags).toEqual(expected);
  });

  it('are accepted by node', () => {
    const run = spawnSync(process.execPath, [...DAEMON_NODE_FLAGS, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('ok');
  });

  it('hold the young generation at its largest from the start, so an idle spell cannot shrink it (the memory reducer)', () => {
    const script = "const s = require('v8').getHeapSpaceStatistics().find((x) => x.space_name === 'new_space'); process.stdout.write(String(s.space_size / 1048576))";
    const sized = (flags: string[]): number => Number(spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' }).stdout);
    // A 16-MiB semi-space with the daemon's flags; V8 on its own starts at 1 MiB and grows under load.
    expect(sized(DAEMON_NODE_FLAGS)).toBe(16);
    expect(sized(DAEMON_NODE_FLAGS.filter((f) => !f.startsWith('--min-semi-space-size')))).toBeLessThan(16);
  });
});
