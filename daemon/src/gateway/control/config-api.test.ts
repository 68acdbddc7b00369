import { describe, expect, it } from 'vitest';
import type { ReloadRecord } from '../../main/app-router.js';
import { configText, join, tempDir, writeFileSync } from '../reload/testing/config-files.js';
import { startApi } from './testing/control-api.js';

function files(): { dir: string; main: string } {
  const dir = tempDir();
  const main = join(dir, 'portico.hcl');
  writeFileSync(
    main,
    `${configText(['/a'])}definitions {\n  backend "api" {\n    origin     = "http://127.0.0.1:1"\n    basic_auth = "ops:s3cr3t-basic"\n    set_request_headers = {\n      x-api-key = "s3cr3t-header"\n    }\n  }\n}\n`,
  );
  return { dir, main };
}

describe('config control API', () => {
  it('shows the status, the history and the active source with secrets as "***"', async () => {
    const { main } = files();
    const { api } = await startApi([main]);
    const status = await api.config.status.query();
    expect(status.files).toEqual([{ path: main, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(status.last).toMatchObject({ trigger: 'start', result: 'applied' });
    expect(status.watching).toContain(main);
    expect(await api.config.history.query()).toEqual([status.last]);

    const active = await api.config.active.query();
    expect(active).toHaveLength(1);
    expect(active[0]).toMatchObject({ path: main, redacted: 2, note: null });
    expect(active[0]!.text).toContain('basic_auth = "***"');
    expect(active[0]!.text).toContain('x-api-key = "***"');
    expect(JSON.stringify(active)).not.toContain('s3cr3t');
  });

  it('reloads on request, answering the record and streaming it on config.changes and the event bus', async () => {
    const { main } = files();
    const { api, bus } = await startApi([main]);
    const seen: Array<{ id: string; data: ReloadRecord }> = [];
    const subscription = api.config.changes.subscribe(undefined, { onData: (tracked) => seen.push(tracked) });
    // The subscription is live once a record pushed after it arrives; reload until one does.
    await expect
      .poll(async () => {
        await api.config.reload.mutate();
        return seen.length;
      })
      .toBeGreaterThan(0);
    const record = await api.config.reload.mutate();
    expect(record).toMatchObject({ trigger: 'control', result: 'applied', diff: { unchanged: true, summary: 'unchanged' } });
    await expect.poll(() => seen.map((s) => s.id)).toContain(record.id);
    expect(seen.find((s) => s.id === record.id)!.data).toEqual(record);
    subscription.unsubscribe();
    expect(bus.latest(500).filter((e) => e.type === 'config.reloaded').at(-1)?.message).toMatch(/^gateway config reload \(control\) applied in \d+ ms: unchanged$/);
  });

  it('resumes config.changes after the last id seen', async () => {
    const { main } = files();
    const { api } = await startApi([main]);
    const first = await api.config.reload.mutate();
    const second = await api.config.reload.mutate();
    const seen: string[] = [];
    const subscription = api.config.changes.subscribe({ lastEventId: first.id }, { onData: (tracked) => seen.push(tracked.id) });
    await expect.poll(() => seen).toEqual([second.id]);
    subscription.unsubscribe();
  });

  it('publishes a rejected save with its diagnostics on the event bus', async () => {
    const { main } = files();
    const { api, bus } = await startApi([main]);
    writeFileSync(main, 'server "main" {\n  endpoint "/a" {\n  }\n');
    await expect.poll(async () => (await api.config.status.query()).last?.result).toBe('rejected');
    const event = bus.latest(500).filter((e) => e.type === 'config.reloaded').at(-1)!;
    expect(event.level).toBe('error');
    expect(event.message).toContain(`gateway config reload (file) rejected: ${main}:`);
    expect(event.message).toContain('the previous configuration keeps serving');
  });

  it('validates a candidate and refuses an unknown file with BAD_REQUEST', async () => {
    const { main } = files();
    const { api, target } = await startApi([main]);
    const result = await api.config.validate.mutate({ text: 'server "main" {\n  bogus = 1\n}\n', file: 'portico.hcl' });
    expect(result.ok).toBe(false);
    expect(result.diagnostics[0]).toMatchObject({ file: main, line: 2, column: 3, summary: 'Unsupported argument' });
    // The lines shown are the candidate's, not the active file's.
    expect(result.diagnostics[0]!.excerpt).toEqual({ firstLine: 1, lines: ['server "main" {', '  bogus = 1', '}'], line: 2, startColumn: 3, endColumn: 8 });
    await expect(api.config.validate.mutate({ text: '', file: 'nope.hcl' })).rejects.toMatchObject({ data: { code: 'BAD_REQUEST' } });
    expect(target.applied).toHaveLength(1);
  });
});
