import { expect, test } from 'vitest';
import { backendRequest, backendsFor, barrier, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

test('the response body streams: the first chunk is readable while the origin has not finished', async () => {
  const firstChunkRead = barrier();
  const chunk = Buffer.alloc(128 * 1024, 'b');
  const origin = await startOrigin((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    res.write(chunk);
    // The rest only after the test has read the first part: a buffering client would never get there.
    void firstChunkRead.promise.then(() => {
      res.write(chunk);
      res.end(chunk);
    });
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set, log } = backendsFor(config);

  const response = await set.get('b').send(backendRequest(`${origin.url}/download`));
  const first = await new Promise<Buffer>((resolve) => response.body.once('data', resolve));
  expect(first.length).toBeGreaterThan(0);
  expect(log).toHaveLength(0);
  firstChunkRead.open();
  const rest = await readAll(response.body);
  expect(first.length + Buffer.byteLength(rest)).toBe(3 * chunk.length);
  await expect.poll(() => log.length).toBe(1);
  expect(log[0]).toMatchObject({ status: 200, response: { bytes: 3 * chunk.length } });
});

test('destroying the body early aborts the exchange and logs it as canceled, not as a backend error', async () => {
  const origin = await startOrigin((_req, res) => {
    res.writeHead(200);
    res.write('part');
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set, log } = backendsFor(config);
  const response = await set.get('b').send(backendRequest(`${origin.url}/`));
  await new Promise((resolve) => response.body.once('data', resolve));
  response.body.destroy();
  await expect.poll(() => log.length).toBe(1);
  expect(log[0]).toMatchObject({ level: 'warn', status: 200, message: expect.stringContaining('canceled') });
  expect(log[0]).not.toHaveProperty('error_type');
  await expect.poll(() => origin.open()).toBe(0);
});
