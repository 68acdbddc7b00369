import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import type { Store } from '../store/types.js';
import { IngestWorker } from './ingest-worker.js';
import { JobStore } from './job-store.js';
import { RetentionWorker } from './retention-worker.js';
import { QUIET_LOGGER, migratedStore } from './testing/ingest-fixture.js';
import { UploadFiles, type StagedUpload } from './upload-files.js';

/** Upload files leave the data dir with their jobs' retention, and nothing a crash left stays. */
const factories = await testDatabases();
const DAY = 24 * 3600_000;
const scope = { tenantId: 't', workspaceId: 'w' };

describe.each(factories.map((f) => [f.kind, f] as const))('upload files cleanup on %s', (_kind, factory) => {
  let database: TestDatabase;
  let store: Store;
  let dataDir: string;
  let uploads: UploadFiles;
  let jobs: JobStore;
  let datasetId: string;
  let now: number;
  beforeEach(async () => {
    database = factory();
    store = await migratedStore(database);
    dataDir = mkdtempSync(join(tmpdir(), 'portico-cleanup-'));
    uploads = new UploadFiles(join(dataDir, 'uploads'), { store: () => store, logger: QUIET_LOGGER });
    now = Date.now();
    jobs = new JobStore(store, () => now);
    datasetId = (await jobs.createDataset(scope, 'd')).dataset_id;
  });
  afterEach(async () => {
    await store.close();
    await database.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function upload(text: string): Promise<{ jobId: string; fileId: string }> {
    const staged = await uploads.stage();
    await staged.write(Buffer.from(text));
    const job = await jobs.createJob(scope, { datasetId, jobKind: 'PARSE_AND_INGEST', tableId: null, fileId: null, request: {}, callback: null }, { filename: 'a.csv', contentType: null, upload: staged });
    return { jobId: job.ingest_job_id, fileId: (await jobs.job(scope, job.ingest_job_id)).file_id! };
  }
  const names = (): string[] => readdirSync(uploads.dir).sort();
  const aged = (path: string, ms: number): void => {
    const when = new Date(Date.now() - ms);
    utimesSync(path, when, when);
  };
  const temp = (host: string, pid: number): string => join(uploads.dir, `.${randomUUID()}.${host}.${pid}.part`);
  /** The temporary file of an upload this process has under way, partly written. */
  async function uploadUnderWay(files: UploadFiles): Promise<{ upload: StagedUpload; path: string }> {
    mkdirSync(files.dir, { recursive: true });
    const before = new Set(names());
    const upload = await files.stage();
    await upload.write(Buffer.from('partial'));
    const [name] = names().filter((n) => !before.has(n));
    return { upload, path: join(files.dir, name!) };
  }

  it("removes an upload's file when retention purges it, and a REPARSE of its table then fails clearly", async () => {
    const worker = new IngestWorker({ store: () => store, uploads, logger: QUIET_LOGGER, pollIntervalMs: 10, stopGraceMs: 10, poll: false, clock: () => now });
    const retention = new RetentionWorker({ store: () => store, uploads, logger: QUIET_LOGGER, retentionDays: 30, intervalMs: 1000, clock: () => now, poll: false });
    const old = await upload('x\n1\n');
    await worker.runOnce();
    const recent = await upload('y\n2\n');
    now += 40 * DAY;
    await worker.runOnce();
    expect((await retention.runOnce()).filesPurged).toBe(1);
    expect(existsSync(uploads.pathOf(old.fileId))).toBe(false);
    expect(names()).toEqual([recent.fileId]);
    expect(await store.get('SELECT storage, purged_at FROM ingest_files WHERE file_id = ?', [old.fileId])).toEqual({ storage: 'data_dir', purged_at: now });
    const tableId = (await jobs.job(scope, old.jobId)).table_id!;
    const reparse = await jobs.createJob(scope, { datasetId, jobKind: 'REPARSE', tableId, fileId: null, request: {}, callback: null });
    await worker.runOnce();
    expect(JSON.parse((await jobs.job(scope, reparse.ingest_job_id)).result_json).error).toBe('source file a.csv was removed by retention; upload it again');
  });

  it('sweeps at start what crashed uploads left and keeps what is live', async () => {
    const live = await upload('live\n');
    const purged = await upload('purged\n');
    await store.run('UPDATE ingest_files SET purged_at = ? WHERE file_id = ?', [now, purged.fileId]);
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
    const underWay = await uploadUnderWay(uploads);
    const keep = [
      uploads.pathOf(live.fileId),
      // An upload under way in this process, and a fresh one of another host.
      underWay.path,
      temp('other-host', deadPid),
      // Renamed, its transaction maybe still committing.
      join(uploads.dir, randomUUID()),
    ];
    // The last: named for this host and pid but held by no upload of this process, so left by an
    // earlier process that had this pid (a container restarted as pid 1).
    const gone = [temp(hostname(), deadPid), temp('other-host', deadPid), join(uploads.dir, randomUUID()), temp(hostname(), process.pid)];
    for (const path of [...keep.slice(2), ...gone]) writeFileSync(path, 'partial');
    // A temporary file nobody wrote for 2 hours, a file without a row for 20 minutes.
    aged(gone[1]!, 2 * 3600_000);
    aged(gone[2]!, 20 * 60_000);
    await uploads.start();
    // Gone: the dead processes' temporary files, the stale one of another host, the old file without a row, the purged row's file.
    expect(names()).toEqual(keep.map((p) => p.slice(uploads.dir.length + 1)).sort());
    expect(await uploads.sweep(store)).toEqual({ temporary: 0, orphaned: 0 });
    await underWay.upload.discard();
  });

  it("keeps this process's uploads under way whichever of its UploadFiles sweeps, and sweeps their leftovers once they end", async () => {
    // The retention worker sweeps with its own UploadFiles while the API's receives uploads.
    const apiFiles = new UploadFiles(uploads.dir);
    const placed = await uploadUnderWay(apiFiles);
    const discarded = await uploadUnderWay(apiFiles);
    const leftover = temp(hostname(), process.pid);
    writeFileSync(leftover, 'partial');
    expect(await uploads.sweep(store)).toEqual({ temporary: 1, orphaned: 0 });
    expect(names()).toEqual([placed.path, discarded.path].map((p) => p.slice(uploads.dir.length + 1)).sort());
    // Placed and discarded, their names no longer hold anything: a file by the same name is a leftover.
    const fileId = randomUUID();
    await placed.upload.place(fileId);
    await discarded.upload.discard();
    writeFileSync(placed.path, 'partial');
    writeFileSync(discarded.path, 'partial');
    expect(await uploads.sweep(store)).toEqual({ temporary: 2, orphaned: 0 });
    expect(names()).toEqual([fileId]);
  });
});
