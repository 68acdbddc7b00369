import { expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll, settle } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

test('each request writes one gateway_backend record when the response ends: ids, sizes, timings, no secrets', async () => {
  const origin = await startOrigin((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json', 'X-Internal': 'hidden' }).end('{"ok":true}'));
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "api" {\n origin = "${origin.url}"\n}`);
  const { set, log } = backendsFor(config);

  const response = await set.get('api').send(
    backendRequest(`http://user:pw@127.0.0.1:${origin.port}/items?page=2&access_token=abc123`, {
      method: 'POST',
      headers: { authorization: 'Bearer topsecret', cookie: 'session=s3cr3t', 'content-type': 'text/plain', 'user-agent': 'test-agent' },
      body: 'hello body',
      requestId: 'uid-42',
      handler: 'default',
      customLogFields: () => ({ team: 'core' }),
    }),
  );
  await readAll(response.body);
  await expect.poll(() => log.length).toBe(1);

  const record = log[0]!;
  expect(record).toMatchObject({
    type: 'gateway_backend',
    level: 'info',
    uid: 'uid-42',
    backend: 'api',
    handler: 'default',
    method: 'POST',
    status: 200,
    url: `http://127.0.0.1:${origin.port}/items?page=2&access_token=***`,
    request: { bytes: 10, headers: { 'content-type': 'text/plain', 'user-agent': 'test-agent' }, proto: 'http' },
    response: { status: 200, bytes: 11, protocol: 'http/1.1', headers: { 'content-type': 'application/json' } },
    custom: { team: 'core' },
  });
  expect(Date.parse(record.timestamp)).not.toBeNaN();
  const timings = record.timings as Record<string, number | null>;
  expect(timings.tcp).toEqual(expect.any(Number));
  expect(timings.ttfb).toEqual(expect.any(Number));
  expect(timings.total).toEqual(expect.any(Number));
  // An IP address needs no lookup, and plain HTTP no handshake.
  expect(timings.dns).toBeNull();
  expect(timings.tls).toBeNull();
  const text = JSON.stringify(record);
  for (const secret of ['topsecret', 's3cr3t', 'abc123', 'user:pw', 'X-Internal', 'hidden']) expect(text).not.toContain(secret);
});

test('a reused connection reports no connect timings', async () => {
  const origin = await startOrigin((_req, res) => res.end('ok'));
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set, log } = backendsFor(config);
  for (const id of ['first', 'second']) {
    await readAll((await set.get('b').send(backendRequest(`${origin.url}/`, { requestId: id }))).body);
    await settle();
  }
  await expect.poll(() => log.length).toBe(2);
  expect(origin.connections()).toBe(1);
  expect(log.find((r) => r.uid === 'first')!.timings).toMatchObject({ tcp: expect.any(Number) });
  expect(log.find((r) => r.uid === 'second')!.timings).toMatchObject({ dns: null, tcp: null, tls: null, ttfb: expect.any(Number) });
});
