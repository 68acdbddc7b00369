import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from '../daemon/src/ingest/testing/https-receiver.js';
import { seedDeliveries } from '../daemon/src/ingest/testing/ingest-fixture.js';
import { SqliteStore } from '../daemon/src/store/sqlite-store.js';
import { runPortico, startDaemon, waitUntil, type DaemonHandle } from './harness.js';

const SECRET = 'reset-secret-0123456789abcdef0123456789';
let tls: TestTls;
let receiver: TestReceiver;
let daemon: DaemonHandle;
let store: SqliteStore;
beforeAll(async () => {
  tls = makeTestTls();
  receiver = await startReceiver(tls);
  daemon = await startDaemon({ env: { SERVICE_CALLBACK_CA_FILE: tls.caFile, SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1', SERVICE_CALLBACK_POLL_INTERVAL_S: '0.1' } });
  store = new SqliteStore({ file: join(daemon.dataDir, 'portico.db') });
});
afterAll(async () => {
  await store?.close();
  await daemon?.dispose();
  await receiver?.close();
  tls?.dispose();
});

const connection = () => ['--url', daemon.controlUrl, '--token-file', join(daemon.dataDir, 'control.token')];

describe('resetting DEAD deliveries with portico deliveries reset', () => {
  it('shows the count, refuses without --yes off a terminal, resets, and the rows then deliver once each', async () => {
    const ids = await seedDeliveries(store, 3, `${receiver.url}/dead`, SECRET);
    await store.run(`UPDATE ingest_callback_outbox SET status = 'DEAD', attempts = 5, finished_at = ?, last_error = 'receiver answered HTTP 503'`, [Date.now()]);

    const dry = await runPortico(['deliveries', 'reset', '--all', '--dry-run', ...connection()]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('3 DEAD deliveries match');
    const refused = await runPortico(['deliveries', 'reset', '--callback-url', '/dead', ...connection()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/pass --yes/);
    expect(await store.get("SELECT COUNT(*) AS n FROM ingest_callback_outbox WHERE status = 'DEAD'")).toEqual({ n: 3 });
    const usage = await runPortico(['deliveries', 'reset', ...connection()]);
    expect(usage.code).toBe(2);

    const reset = await runPortico(['deliveries', 'reset', '--callback-url', '/dead', '--yes', ...connection()]);
    expect(reset.stderr).toBe('');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/reset 3 deliveries to PENDING/);
    await waitUntil(async () => (await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM ingest_callback_outbox WHERE status = 'DELIVERED'"))!.n === 3, 20_000);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
    expect(receiver.received).toHaveLength(3);
    const recorded = await store.all<{ actor: string; count: number }>('SELECT actor, count FROM ingest_delivery_resets');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.count).toBe(3);
    expect(recorded[0]!.actor).toMatch(/\(cli\)$/);

    const list = await runPortico(['deliveries', 'list', '--status', 'delivered', ...connection()]);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+JOB\s+STATUS/);
    expect(list.stdout).not.toContain(SECRET);
  });

  it('portico verify-signature accepts a received callback and rejects a tampered one', async () => {
    const got = receiver.received[0]!;
    const bodyFile = join(tls.dir, 'received.json');
    const secretFile = join(tls.dir, 'secret.txt');
    writeFileSync(bodyFile, got.body);
    writeFileSync(secretFile, `${SECRET}\n`);
    const headers = ['x-service-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].flatMap((h) => ['-H', `${h}: ${String(got.headers[h])}`]);
    const ok = await runPortico(['verify-signature', '--secret-file', secretFile, '--body', bodyFile, ...headers]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^valid \(X-Service-Signature, webhook-signature\)/);
    writeFileSync(bodyFile, Buffer.concat([got.body, Buffer.from(' ')]));
    const tampered = await runPortico(['verify-signature', '--secret-file', secretFile, '--body', bodyFile, ...headers]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/^invalid: X-Service-Signature does not match/);
    const none = await runPortico(['verify-signature', '--secret-file', secretFile, '--body', bodyFile]);
    expect(none.code).toBe(1);
  });
});
