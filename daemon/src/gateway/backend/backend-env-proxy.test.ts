import { expect, test } from 'vitest';
import { backendRequest, backendsFor, cleanup, loadDefinitions, readAll } from './testing/backend-fixture.js';
import { startForwardProxy, type TestProxy } from './testing/forward-proxy.js';
import { startOrigin, type TestOrigin } from './testing/origin.js';

async function setup(): Promise<{ proxy: TestProxy; origin: TestOrigin }> {
  const proxy = await startForwardProxy();
  cleanup(proxy.close);
  const origin = await startOrigin((_req, res) => res.end('ok'));
  cleanup(origin.close);
  return { proxy, origin };
}

function proxied(proxy: TestProxy): string[] {
  return [...proxy.connects, ...proxy.requests];
}

test('HTTP_PROXY from the environment is used (lower-case http_proxy wins over upper case)', async () => {
  const { proxy, origin } = await setup();
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set } = backendsFor(config, { http_proxy: proxy.url, HTTP_PROXY: 'http://127.0.0.1:1' });
  expect(await readAll((await set.get('b').send(backendRequest(`${origin.url}/`))).body)).toBe('ok');
  expect(proxied(proxy)).toEqual([`127.0.0.1:${origin.port}`]);
});

test('NO_PROXY exempts a host', async () => {
  const { proxy, origin } = await setup();
  const config = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`);
  const { set } = backendsFor(config, { HTTP_PROXY: proxy.url, NO_PROXY: 'example.com,127.0.0.1' });
  expect(await readAll((await set.get('b').send(backendRequest(`${origin.url}/`))).body)).toBe('ok');
  expect(proxied(proxy)).toEqual([]);
});

test('no_proxy_from_env (backend, else settings) ignores the environment', async () => {
  const { proxy, origin } = await setup();
  const env = { HTTP_PROXY: proxy.url };
  const perBackend = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n no_proxy_from_env = true\n}`);
  expect(await readAll((await backendsFor(perBackend, env).set.get('b').send(backendRequest(`${origin.url}/`))).body)).toBe('ok');
  const global = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n}`, {}, 'settings {\n no_proxy_from_env = true\n}');
  expect(await readAll((await backendsFor(global, env).set.get('b').send(backendRequest(`${origin.url}/`))).body)).toBe('ok');
  expect(proxied(proxy)).toEqual([]);
  const overridden = await loadDefinitions(`backend "b" {\n origin = "${origin.url}"\n no_proxy_from_env = false\n}`, {}, 'settings {\n no_proxy_from_env = true\n}');
  expect(await readAll((await backendsFor(overridden, env).set.get('b').send(backendRequest(`${origin.url}/`))).body)).toBe('ok');
  expect(proxied(proxy)).toEqual([`127.0.0.1:${origin.port}`]);
});
