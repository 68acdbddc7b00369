import { expect, test } from 'vitest';
import { SMALL_BODY_BYTES } from './backend-exchange.js';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { startOrigin } from './testing/origin.js';

test('a small body of known length is read whole before the response is given; a large or chunked one streams', async () => {
  const small = 'x'.repeat(1000);
  const large = 'y'.repeat(SMALL_BODY_BYTES + 1);
  const origin = await startOrigin((req, res) => {
    if (req.url === '/chunked') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('part one, ');
      setTimeout(() => res.end('part two'), 20);
      return;
    }
    const body = req.url === '/large' ? large : small;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(body.length) });
    res.end(body);
  });
  cleanup(origin.close);
  const { set } = backendsFor(await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`));

  const whole = await set.get('b').send(backendRequest(`${origin.url}/small`));
  expect(whole.buffered?.toString()).toBe(small);
  // Read as a stream all the same, for readers that want one.
  expect(await readAll(whole.body)).toBe(small);

  const streamed = await set.get('b').send(backendRequest(`${origin.url}/large`));
  expect(streamed.buffered).toBeUndefined();
  expect((await readAll(streamed.body)).length).toBe(large.length);

  const chunked = await set.get('b').send(backendRequest(`${origin.url}/chunked`));
  expect(chunked.buffered).toBeUndefined();
  expect(await readAll(chunked.body)).toBe('part one, part two');

  const head = await set.get('b').send(backendRequest(`${origin.url}/small`, { method: 'HEAD' }));
  expect(head.buffered).toBeUndefined();
  expect(head.headers['content-length']).toBe(String(small.length));
});

test('a small body the backend cuts short is a backend error, not a truncated answer', async () => {
  const origin = await startOrigin((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
    res.write('only part of it');
    setTimeout(() => res.socket?.destroy(), 20);
  });
  cleanup(origin.close);
  const { set, log } = backendsFor(await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`));

  await expect(set.get('b').send(backendRequest(`${origin.url}/cut`))).rejects.toMatchObject({ kind: 'backend' });
  expect(log.at(-1)).toMatchObject({ type: 'gateway_backend', status: 200, error_type: 'backend' });
});
