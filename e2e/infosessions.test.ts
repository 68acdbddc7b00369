import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runPortico, startDaemon, waitUntil, type DaemonHandle } from './harness.js';

// Byte-exact copies of ../shared/data/uwaterloo (see config/data/uwaterloo-legacy/README.md).
const LEGACY_DIR = join(REPO_ROOT, 'config', 'data', 'uwaterloo-legacy');
const TERMS = ['1139', '1141', '1145', '1151'].map((t) => join(LEGACY_DIR, `uWaterloo-Datasets-EmployerInfoSessions-${t}infosessions.csv`));
const HEADER = 'id,employer,date,start_time,end_time,description,website,building_code,building_room,audience,link,students\n';

interface Envelope {
  meta: { requests: number; timestamp: number; status: number; message: string; method_id: number; method: object };
  data: Array<Record<string, unknown>>;
}

const dir = mkdtempSync(join(tmpdir(), 'portico-infosessions-'));
const csv = join(dir, 'infosessions.csv');
const buildings = join(dir, 'buildings.csv');
let daemon: DaemonHandle;
let key: string;

async function control<T>(path: string, input?: unknown, mutation = false): Promise<T> {
  const url = `${daemon.controlUrl}/trpc/${path}${!mutation && input !== undefined ? `?input=${encodeURIComponent(JSON.stringify(input))}` : ''}`;
  const res = await fetch(url, {
    method: mutation ? 'POST' : 'GET',
    headers: { Authorization: `Bearer ${daemon.token}`, 'Content-Type': 'application/json' },
    ...(mutation ? { body: JSON.stringify(input ?? null) } : {}),
  });
  const body = (await res.json()) as { result?: { data: T }; error?: unknown };
  if (!body.result) throw new Error(`${path}: ${JSON.stringify(body.error)}`);
  return body.result.data;
}

async function get(query: string, format = 'json'): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${daemon.servicesUrl}/v2/resources/infosessions.${format}${query}`);
  return { status: res.status, headers: res.headers, text: await res.text() };
}
const json = async (query: string): Promise<Envelope & { httpStatus: number }> => {
  const r = await get(query);
  return { ...(JSON.parse(r.text) as Envelope), httpStatus: r.status };
};

async function createKey(name: string, extra: string[] = []): Promise<string> {
  const r = await runPortico(['keys', 'create', '--name', name, ...extra, '--url', daemon.controlUrl, '--data-dir', daemon.dataDir]);
  expect(r.code, r.stderr).toBe(0);
  const last = r.stdout.trimEnd().split('\n').at(-1) ?? '';
  expect(last).toMatch(/^[0-9a-f]{32}$/);
  return last;
}

beforeAll(async () => {
  copyFileSync(join(REPO_ROOT, 'config', 'data', 'infosessions.csv'), csv);
  copyFileSync(join(REPO_ROOT, 'config', 'data', 'buildings.csv'), buildings);
  daemon = await startDaemon({ env: { PORTICO_INFOSESSIONS_CSV: csv, PORTICO_BUILDINGS_CSV: buildings } });
  key = await createKey('e2e');
});
afterAll(async () => {
  await daemon?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('infosessions over HTTP', () => {
  it('serves the sample as JSON: the envelope, every field, nulls kept, building from the table, no-cache', async () => {
    const r = await get(`?key=${key}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('cache-control')).toMatch(/max-age=0/);
    const body = JSON.parse(r.text) as Envelope;
    expect(body.meta).toMatchObject({ requests: 1, status: 200, message: 'Request successful', method_id: 1129, method: {} });
    expect(Math.abs(body.meta.timestamp - Date.now() / 1000)).toBeLessThan(10);
    expect(body.data).toHaveLength(363);
    const hulu = body.data.find((d) => d.id === 2082);
    expect(hulu).toEqual({
      id: 2082,
      employer: 'Hulu',
      date: '2013-09-09',
      day: 'September',
      start_time: '11:30',
      end_time: '13:30',
      description: null,
      website: 'http://www.hulu.com',
      building: { code: 'TC', name: 'Tatham Centre', room: '2218', latitude: 43.4693, longitude: -80.5406, map_url: 'https://uwaterloo.ca/map/TC?basemap=D#map=17/43.4693/-80.5406' },
      audience: ['Applied Mathematics', 'Computer Engineering', 'Computer Science', 'Software Engineering', 'Systems Design Engineering'],
      link: 'http://www.ceca.uwaterloo.ca/students/hiresessions_details.php?id=2082',
    });
  });

  it('serves XML and JSONP', async () => {
    const xml = await get(`?key=${key}`, 'xml');
    expect(xml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(xml.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<response>\n  <meta>\n    <requests>\d+<\/requests>/);
    expect(xml.text).toContain('<employer>McKinsey &amp; Company</employer>');
    expect(xml.text.match(/<item>\n\s+<id>/g)).toHaveLength(363);
    const jsonp = await get(`?key=${key}&callback=window.show`);
    expect(jsonp.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(jsonp.text.startsWith('window.show({"meta":')).toBe(true);
    expect(jsonp.text.endsWith('});')).toBe(true);
    const inner = JSON.parse(jsonp.text.slice('window.show('.length, -2)) as Envelope;
    expect(inner.data).toHaveLength(363);
  });

  it.each([
    ['missing key', '', 511, 'API key is required (?key=)'],
    ['unknown key', '?key=0123456789abcdef0123456789abcdef', 401, 'Invalid API key'],
    ['bad callback', '?key=KEY&callback=alert(1)', 400, null],
  ])('%s → %s with an envelope and empty data', async (_what, query, status, message) => {
    const body = await json(query.replace('KEY', key));
    expect(body.httpStatus).toBe(status);
    expect(body.meta.status).toBe(status);
    if (message) expect(body.meta.message).toBe(message);
    expect(body.meta.requests).toBe(-1);
    expect(body.data).toEqual([]);
  });

  it('answers an unknown format with 501 Invalid method', async () => {
    const r = await get(`?key=${key}`, 'csv');
    expect(r.status).toBe(501);
    expect(JSON.parse(r.text)).toMatchObject({ meta: { status: 501, message: 'Invalid method' }, data: [] });
  });

  it('follows the key through ban (403), unban, revoke (401), with the month usage in the CLI list', async () => {
    const k = await createKey('lifecycle');
    expect((await json(`?key=${k}`)).meta.requests).toBe(1);
    const [summary] = (await control<Array<{ id: string; name: string }>>('keys.list')).filter((s) => s.name === 'lifecycle');
    const id = summary!.id;
    const ban = await runPortico(['keys', 'ban', id, '--url', daemon.controlUrl, '--data-dir', daemon.dataDir]);
    expect(ban.stdout).toContain('is banned');
    const banned = await json(`?key=${k}`);
    expect(banned.httpStatus).toBe(403);
    expect(banned.meta).toMatchObject({ status: 403, message: 'The provided API key has been banned', requests: 1 });
    await control('keys.unban', { id }, true);
    expect((await json(`?key=${k}`)).meta.requests).toBe(2);
    const list = await runPortico(['keys', 'list', '--url', daemon.controlUrl, '--data-dir', daemon.dataDir]);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+lifecycle\\s+${k.slice(0, 4)}\\*\\*\\*\\s+active\\s+2\\s`));
    expect(list.stdout).not.toContain(k);
    const badToken = join(dir, 'wrong.token');
    writeFileSync(badToken, 'not-the-control-token-0123456789');
    const refused = await runPortico(['keys', 'list', '--url', daemon.controlUrl, '--token-file', badToken]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused the control token/);
    await runPortico(['keys', 'revoke', id, '--url', daemon.controlUrl, '--data-dir', daemon.dataDir]);
    expect((await json(`?key=${k}`)).httpStatus).toBe(401);
  });

  it('answers 429 once a key used its monthly limit, without counting more', async () => {
    const k = await createKey('limited', ['--limit', '2']);
    expect((await json(`?key=${k}`)).meta.requests).toBe(1);
    expect((await json(`?key=${k}`)).meta.requests).toBe(2);
    const over = await json(`?key=${k}`);
    expect(over.httpStatus).toBe(429);
    expect(over.meta).toMatchObject({ status: 429, message: 'API request limit reached', requests: 2 });
  });

  it('counts exactly under 60 concurrent calls', async () => {
    const k = await createKey('concurrent');
    const bodies = await Promise.all(Array.from({ length: 60 }, () => json(`?key=${k}`)));
    expect(bodies.map((b) => b.meta.requests).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const keys = await control<Array<{ name: string; requestsThisMonth: number }>>('keys.list');
    expect(keys.find((x) => x.name === 'concurrent')?.requestsThisMonth).toBe(60);
  });
});

describe('infosessions CSV hot reload', () => {
  const original = () => readFileSync(join(REPO_ROOT, 'config', 'data', 'infosessions.csv'), 'utf8');
  const employers = async () => (await json(`?key=${key}`)).data.map((d) => d.employer);

  it('serves an edited file within a second, skipping a bad row with its line, and answers 204 (not counted) when empty', async () => {
    writeFileSync(csv, `${HEADER}1,Edited Employer,2026-01-05,11:30,13:30,,,DC,1301,ENG - Software,,\n2,Broken Row,2026-13-05,11:30,13:30,,,DC,1301,,,\n`);
    const t0 = Date.now();
    await waitUntil(async () => (await employers()).join() === 'Edited Employer', 5000, () => 'edit not served');
    expect(Date.now() - t0).toBeLessThan(1000);
    const source = await control<{ sessions: { rows: number; rejected: Array<{ line: number; reason: string }>; error: unknown } }>('infosessions.source');
    expect(source.sessions).toMatchObject({ rows: 1, error: null, rejected: [{ line: 3, reason: 'date "2026-13-05" is not a calendar date' }] });

    // An editor that saves by rename (write a temp file, move it over).
    writeFileSync(`${csv}.tmp`, HEADER);
    renameSync(`${csv}.tmp`, csv);
    await waitUntil(async () => (await json(`?key=${key}`)).meta.status === 204, 3000, () => 'empty file not served');
    const before = (await json(`?key=${key}`)).meta.requests;
    const empty = await json(`?key=${key}`);
    expect(empty).toMatchObject({ httpStatus: 200, meta: { status: 204, message: 'No data returned', requests: before }, data: [] });
  });

  it('keeps serving the previous data when a save cannot be parsed, reports it, and recovers', async () => {
    writeFileSync(csv, original());
    await waitUntil(async () => (await employers()).length === 363, 3000, () => 'sample not served again');
    writeFileSync(csv, `${HEADER}1,"Unclosed quote,2026-01-05,11:30,13:30,,,DC,1301,,,\n`);
    await waitUntil(async () => (await control<{ sessions: { error: unknown } }>('infosessions.source')).sessions.error !== null, 3000, () => 'error not reported');
    const source = await control<{ sessions: { error: { message: string }; rows: number } }>('infosessions.source');
    expect(source.sessions.error.message).toBe('line 2, column 3: a quoted field is never closed (missing ")');
    expect(source.sessions.rows).toBe(363);
    expect(await employers()).toHaveLength(363);
    await expect.poll(() => daemon.logs()).toMatch(/still serving the previous 363 sessions/);
    writeFileSync(csv, `${HEADER}7,Recovered,2026-01-05,11:30,13:30,,,DC,1301,,,\n`);
    await waitUntil(async () => (await employers()).join() === 'Recovered', 3000, () => 'recovery not served');
    expect((await control<{ sessions: { error: unknown } }>('infosessions.source')).sessions.error).toBeNull();
  });

  it('lists sessions in the control API with search, dates, audience, sort and paging', async () => {
    writeFileSync(csv, original());
    await waitUntil(async () => (await employers()).length === 363, 3000, () => 'sample not served again');
    const page = await control<{ total: number; items: Array<{ employer: string; date: string }>; audiences: string[] }>('infosessions.list', {
      search: 'google',
      sort: 'date',
      order: 'desc',
      limit: 2,
    });
    expect(page.total).toBeGreaterThan(2);
    expect(page.items).toHaveLength(2);
    expect(page.items[0]!.date >= page.items[1]!.date).toBe(true);
    expect(page.audiences).toContain('MATH - Computer Science');
    const ranged = await control<{ total: number; items: Array<{ date: string }> }>('infosessions.list', { from: '2014-01-01', to: '2014-01-31', audience: 'math - computer science', limit: 1000 });
    expect(ranged.total).toBeGreaterThan(0);
    expect(ranged.items.every((s) => s.date >= '2014-01-01' && s.date <= '2014-01-31')).toBe(true);
  });
});

describe('portico infosessions import', () => {
  it('imports all four real legacy files, reporting what it could not map, and the result serves 363 sessions', async () => {
    const out = join(dir, 'imported.csv');
    const r = await runPortico(['infosessions', 'import', '-o', out, ...TERMS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/1139infosessions\.csv: 117 records, \d+ notes, decoded as Windows-1252/);
    expect(r.stderr).toMatch(/1141infosessions\.csv: 107 records/);
    expect(r.stderr).toMatch(/1145infosessions\.csv: 48 records/);
    expect(r.stderr).toMatch(/1151infosessions\.csv: 91 records/);
    expect(r.stderr).toMatch(/1139infosessions\.csv:22: location "Waterloo Inn" names no campus building/);
    writeFileSync(csv, readFileSync(out));
    await waitUntil(async () => (await json(`?key=${key}`)).data.length === 363, 3000, () => 'imported file not served');
    const source = await control<{ sessions: { rejected: unknown[] } }>('infosessions.source');
    expect(source.sessions.rejected).toEqual([]);
  });

  it('exits 1 for a file that is not in the legacy layout and 2 without files', async () => {
    const bad = join(dir, 'not-legacy.csv');
    writeFileSync(bad, 'a,b\n1,2\n');
    const r = await runPortico(['infosessions', 'import', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not the legacy layout/);
    expect((await runPortico(['infosessions', 'import'])).code).toBe(2);
  });
});
