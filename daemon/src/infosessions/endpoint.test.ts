import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../store/migrate.js';
import { DAEMON_MIGRATIONS as MIGRATION_SETS } from '../main/areas.js';
import { SqliteStore } from '../store/sqlite-store.js';
import { ApiKeys } from './api-keys.js';
import { parseCsv } from '../core/csv.js';
import { infosessionsEndpoint, isInfosessionsPath } from './endpoint.js';
import { readSessionRows } from './layout.js';
import { SessionSnapshot } from './source.js';

const CSV = `id,employer,date,start_time,end_time,description,website,building_code,building_room,audience,link
3681,Google,2016-01-05,17:00,19:00,"Info <session> & ""more""",,FED,Main Hall,ENG - Computer;MATH - Pure Mathematics,
`;
const full = new SessionSnapshot(readSessionRows(parseCsv(CSV), new Map()).sessions);
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

let server: Server;
let base: string;
let snapshot = full;
let store: SqliteStore;
let keys: ApiKeys;
let secret: string;

beforeAll(async () => {
  store = new SqliteStore({ file: ':memory:' });
  await migrate(store, MIGRATION_SETS);
  keys = new ApiKeys(() => store, () => NOW);
  secret = (await keys.create({ name: 'test' })).secret;
  const handler = infosessionsEndpoint({ keys, snapshot: () => snapshot, now: () => NOW });
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (!isInfosessionsPath(url.pathname)) return void res.writeHead(404).end();
    void handler(req, res, url);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/resources/infosessions`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await store.close();
});

describe('infosessions endpoint', () => {
  it('answers JSON with the envelope, counts the call, and sends no-cache headers', async () => {
    const res = await fetch(`${base}.json?key=${secret}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toContain('max-age=0');
    const body = (await res.json()) as { meta: unknown; data: Array<Record<string, unknown>> };
    expect(body.meta).toEqual({ requests: 1, timestamp: Math.floor(NOW / 1000), status: 200, message: 'Request successful', method_id: 1129, method: {} });
    expect(body.data[0]).toMatchObject({ id: 3681, day: 'January', website: null, link: null, audience: ['ENG - Computer', 'MATH - Pure Mathematics'] });
  });

  it('wraps JSON for a valid callback and refuses a bad one with 400', async () => {
    const res = await fetch(`${base}.json?key=${secret}&callback=app.cb`);
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    const text = await res.text();
    expect(text).toMatch(/^app\.cb\(\{"meta":\{"requests":2,/);
    expect(text.endsWith('});')).toBe(true);
    const bad = await fetch(`${base}.json?key=${secret}&callback=alert(1)`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { meta: { status: number } }).meta.status).toBe(400);
  });

  it('renders XML with items for lists, empty elements for null, escaped text', async () => {
    const res = await fetch(`${base}.xml?key=${secret}`);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const xml = await res.text();
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<response>\n  <meta>\n    <requests>3</requests>')).toBe(true);
    expect(xml).toContain('<method></method>');
    expect(xml).toContain('<description>Info &lt;session&gt; &amp; &quot;more&quot;</description>');
    expect(xml).toContain('<audience>\n        <item>ENG - Computer</item>');
    expect(xml).toContain('<website></website>');
  });

  it.each([
    ['.json', 511, 'API key is required (?key=)', -1],
    ['.json?key=wrong', 401, 'Invalid API key', -1],
    ['.csv?key=wrong', 501, 'Invalid method', -1],
    ['', 501, 'Invalid method', -1],
  ])('%s → %i', async (suffix, status, message, requests) => {
    const res = await fetch(`${base}${suffix}`);
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ meta: { requests, timestamp: Math.floor(NOW / 1000), status, message, method_id: 1129, method: {} }, data: [] });
  });

  it('answers 204 in the envelope (HTTP 200) without counting when there is no data', async () => {
    snapshot = new SessionSnapshot([]);
    try {
      const before = await keys.usage((await keys.list())[0]!.id);
      const res = await fetch(`${base}.json?key=${secret}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ meta: { status: 204, message: 'No data returned', requests: before }, data: [] });
      expect(await keys.usage((await keys.list())[0]!.id)).toBe(before);
    } finally {
      snapshot = full;
    }
  });

  it('refuses POST with 405 and an Allow header', async () => {
    const res = await fetch(`${base}.json?key=${secret}`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});
