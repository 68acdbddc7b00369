import { afterAll, expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll, settle } from './testing/backend-fixture.js';
import { makeCertificates } from './testing/certificates.js';
import { startH2Origin } from './testing/origin.js';
import { trailersOf } from './trailers.js';

const tls = makeCertificates(['localhost', '127.0.0.1']);
afterAll(() => tls.dispose());

test('http2 = true speaks HTTP/2 to an HTTP/2-only origin (ALPN) and keeps using its session', async () => {
  const origin = await startH2Origin(tls, (req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`h2 ${req.httpVersion} ${req.url}`);
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n http2 = true\n ca_file = "${tls.caFile}"\n}`);
  const { set, log } = backendsFor(config);
  const answers: string[] = [];
  for (const path of ['/a', '/b', '/c']) {
    answers.push(await readAll((await set.get('b').send(backendRequest(`${origin.url}${path}`))).body));
    await settle();
  }
  expect(answers).toEqual(['h2 2.0 /a', 'h2 2.0 /b', 'h2 2.0 /c']);
  expect(origin.connections()).toBe(1);
  await expect.poll(() => log.length).toBe(3);
  expect(log.map((r) => (r.response as { protocol: string }).protocol)).toEqual(['h2', 'h2', 'h2']);
});

test('without http2 the same origin cannot be reached (HTTP/1.1 only)', async () => {
  const origin = await startH2Origin(tls, (_req, res) => res.end('never'));
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n ca_file = "${tls.caFile}"\n}`);
  const { set } = backendsFor(config);
  const failure = await set.get('b').send(backendRequest(`${origin.url}/`)).catch((e: unknown) => e);
  expect(failure).toMatchObject({ kind: 'backend' });
  expect(origin.requests).toHaveLength(0);
});

test('over HTTP/2 the trailers after a streamed body come with it, as over HTTP/1.1 (gRPC status)', async () => {
  const origin = await startH2Origin(tls, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/grpc', trailer: 'grpc-status, grpc-message' });
    res.write('frame');
    res.addTrailers({ 'grpc-status': '0', 'grpc-message': 'OK', 'www-authenticate': 'Basic' });
    res.end();
  });
  cleanup(origin.close);
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n http2 = true\n ca_file = "${tls.caFile}"\n}`);
  const { set } = backendsFor(config);
  const response = await set.get('b').send(backendRequest(`${origin.url}/rpc`));
  expect(await readAll(response.body)).toBe('frame');
  const trailers = trailersOf(response.body);
  expect(trailers?.announced).toBe('grpc-status, grpc-message');
  expect(trailers?.values).toEqual([
    ['grpc-status', '0'],
    ['grpc-message', 'OK'],
  ]);
});
