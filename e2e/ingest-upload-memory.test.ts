import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sendStreamedUpload } from '../daemon/src/ingest/testing/multipart-upload.js';
import { postgresReachable } from '../daemon/src/store/testing/databases.js';
import { daemonDatabase, runPortico, startDaemon, type DaemonDatabase, type DaemonHandle } from './harness.js';
import { tenantCall } from './ingest-api.js';

/** Issue 15 point 4: eight concurrent 50 MB uploads keep the receiving daemon under 250 MB RSS. */
const UPLOADS = 8;
const UPLOAD_BYTES = 50 * 1024 * 1024;
const MB = 1024 * 1024;
const RSS_BOUND = 250 * MB;

const withPostgres = await postgresReachable();
const started: DaemonHandle[] = [];
const databases: DaemonDatabase[] = [];
afterAll(async () => {
  for (const d of started) await d.dispose();
  for (const database of databases) await database.drop();
});

/** VmRSS and VmHWM (the peak since the process started) of a process, in bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Sent to the internal services listener, or through the gateway of config/portico.hcl (a bearer token names the tenant). */
type Route = 'services listener' | 'gateway';
const cases: Array<['sqlite' | 'postgres', Route]> = [['sqlite', 'services listener'], ['sqlite', 'gateway'], ...(withPostgres ? [['postgres', 'services listener'] as ['postgres', Route]] : [])];

describe.each(cases)('upload memory on %s, through the %s', (kind, route) => {
  it(`${UPLOADS} concurrent ${UPLOAD_BYTES / MB} MB uploads keep the daemon's peak RSS under ${RSS_BOUND / MB} MB`, async () => {
    // gateway mode: the gateway and the ingest API, without an ingest worker parsing the uploads meanwhile.
    const database = await daemonDatabase(kind);
    databases.push(database);
    const daemon = await startDaemon({ args: ['--mode', 'gateway'], env: database.env });
    started.push(daemon);
    const pid = daemon.pid()!;
    const dataset = await tenantCall(daemon, '/api/v1/datasets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'big' }) });
    expect(dataset.status).toBe(201);
    let base = daemon.servicesUrl;
    let headers: Record<string, string> = { 'X-Tenant-Id': 'acme', 'X-Workspace-Id': 'main' };
    if (route === 'gateway') {
      const token = await runPortico(['token', 'create', '--tenant', 'acme', '--workspace', 'main', '--data-dir', daemon.dataDir]);
      expect(token.code, token.stderr).toBe(0);
      base = daemon.gatewayUrl;
      headers = { Authorization: `Bearer ${token.stdout.trimEnd().split('\n').at(-1)}` };
    }
    const before = memoryOf(pid);
    let sampled = before.rss;
    const sampler = setInterval(() => (sampled = Math.max(sampled, memoryOf(pid).rss)), 25);
    let answers;
    try {
      answers = await Promise.all(
        Array.from({ length: UPLOADS }, (_, i) =>
          sendStreamedUpload({
            url: `${base}/api/v1/datasets/${dataset.body.dataset_id}/files:async`,
            headers,
            fileBytes: UPLOAD_BYTES,
            filename: `big-${i}.csv`,
          }),
        ),
      );
    } finally {
      clearInterval(sampler);
    }
    const after = memoryOf(pid);
    const peak = Math.max(sampled, after.peak);
    console.log(`${kind}, ${route}: daemon RSS before ${(before.rss / MB).toFixed(0)} MB, peak during ${UPLOADS} x ${UPLOAD_BYTES / MB} MB uploads ${(peak / MB).toFixed(0)} MB (VmHWM ${(after.peak / MB).toFixed(0)} MB), bound ${RSS_BOUND / MB} MB`);
    expect(answers.map((a) => ('status' in a ? a.status : 'aborted'))).toEqual(Array(UPLOADS).fill(202));
    expect(peak).toBeLessThan(RSS_BOUND);
    // Each upload is one file of the data dir, readable by the daemon's user alone.
    const dir = join(daemon.dataDir, 'uploads');
    const files = readdirSync(dir).filter((name) => !name.startsWith('.'));
    expect(files).toHaveLength(UPLOADS);
    for (const name of files) {
      const stat = statSync(join(dir, name));
      expect([stat.size, stat.mode & 0o777]).toEqual([UPLOAD_BYTES, 0o600]);
    }
  }, 180_000);
});
