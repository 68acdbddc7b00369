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

  it('are accepted by node', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, [...DAEMON_NODE_FLAGS, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('ok');
  });
});
