import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CallbackSender } from './callback-sender.js';
import type { OutboxRow } from './records.js';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from './testing/https-receiver.js';

let tls: TestTls;
beforeAll(() => {
  tls = makeTestTls();
});
afterAll(() => tls.dispose());

function row(url: string, n: number): OutboxRow {
  return {
    id: `delivery-${n}`,
    ingest_job_id: `job-${n}`,
    tenant_id: 't1',
    workspace_id: 'w1',
    callback_url: url,
    callback_secret: 'whsec-keep-alive-test',
    callback_headers: '{}',
    event_type: 'ingest.succeeded',
    payload: JSON.stringify({ n }),
    status: 'PENDING',
    attempts: 0,
    attempts_before_reset: 0,
    last_attempt_at: null,
    last_status_code: null,
    last_error: null,
    next_attempt_at: 0,
    created_at: 0,
    finished_at: null,
    lease_owner: null,
    lease_token: null,
    lease_expires_at: null,
  };
}

describe('callback connections to one receiver origin', () => {
  let receiver: TestReceiver;
  let sender: CallbackSender;
  beforeEach(async () => {
    receiver = await startReceiver(tls);
    sender = new CallbackSender({ timeoutMs: 5000, allowHosts: new Set(['127.0.0.1']), extraCa: readFileSync(tls.caFile, 'utf8'), connectionsPerOrigin: 3 });
  });
  afterEach(async () => {
    await sender.close();
    await receiver.close();
  });

  it('keeps at most connectionsPerOrigin keep-alive connections and reuses them batch after batch', async () => {
    // Twelve attempts at once: without the bound each would open a connection of its own.
    for (let batch = 0; batch < 3; batch++) {
      const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => sender.send(row(`${receiver.url}/hook`, batch * 12 + i), Date.now())));
      expect(outcomes.every((o) => o.ok)).toBe(true);
    }
    expect(receiver.received).toHaveLength(36);
    expect(receiver.connections).toHaveLength(3);
  });

  it('resumes the TLS session when it must open a new connection to the origin', async () => {
    const first = await sender.send(row(`${receiver.url}/hook`, 1), Date.now());
    expect(first.ok).toBe(true);
    // TLS 1.3 sends the session ticket after the handshake; give it a moment to arrive.
    await new Promise((r) => setTimeout(r, 50));
    receiver.closeConnections();
    // Let the client see the connection end before it picks one for the next attempt.
    await new Promise((r) => setTimeout(r, 50));
    const second = await sender.send(row(`${receiver.url}/hook`, 2), Date.now());
    expect(second.ok).toBe(true);
    expect(receiver.connections.map((c) => c.resumed)).toEqual([false, true]);
  });

  it('works out each URL\'s target once: a refusal repeats with its reason, each path and query reaches the receiver, past the URLs it keeps', async () => {
    const errors = async (url: string) => (await sender.send(row(url, 0), Date.now())).error;
    for (let round = 0; round < 2; round++) {
      expect(await errors('not a url')).toBe('invalid callback URL');
      expect(await errors(`${receiver.url.replace('https:', 'http:')}/hook`)).toBe('refused: callback URLs must be https://');
      expect(await errors('https://localhost:1/hook')).toMatch(/^refused: localhost is a loopback name/);
      expect(await errors('https://10.0.0.1/hook')).toMatch(/^refused: 10\.0\.0\.1 is a loopback, private/);
    }
    // More URLs than a sender keeps: the ones it dropped are worked out again, the same way.
    for (let n = 0; n < 1100; n++) expect(await errors(`https://10.0.${n >> 8}.${n & 255}/h`)).toMatch(/^refused: 10\.0\.\d+\.\d+ is a loopback, private/);
    expect(await errors('not a url')).toBe('invalid callback URL');
    const sent = ['/hook?a=1', '/hook?a=2', '/other/path', '/hook?a=1'];
    for (const [i, path] of sent.entries()) expect((await sender.send(row(`${receiver.url}${path}`, i), Date.now())).ok).toBe(true);
    expect(receiver.received.map((r) => r.path)).toEqual(sent);
  });
});
