import { randomUUID } from 'node:crypto';
import type { Queryable } from '../store/types.js';
import { CsvError, readCsvTable, scanCsvTable, type Cell, type Column, type PartLimits, type TableShape } from './csv-table.js';
import type { JobRow } from './records.js';
import { READ_PIECE, UploadFileError, type UploadFiles } from './upload-files.js';

/** What a job produced; `write` stores it in the transaction that also finishes the job. */
export interface JobOutcome {
  status: 'SUCCEEDED' | 'FAILED';
  result: Record<string, unknown>;
  write?: (tx: Queryable, now: number) => Promise<{ tableId?: string; snapshotId?: string }>;
  /** Removes what the job stored before finishing (a snapshot's parts) when its finish is not kept. */
  discard?: (db: Queryable) => Promise<void>;
}

/** How a job kind reads its source: the uploaded files, and (for tests) smaller snapshot parts. */
export interface JobKindContext {
  uploads: UploadFiles;
  partLimits?: PartLimits;
}

const SAMPLE_ROWS = 10;
const RELATION_MIN_COVERAGE = 0.95;

/** A snapshot's row, without its rows: those are in `ingest_snapshot_parts` (or, before parts, in `rows_json`). */
interface SnapshotRow {
  snapshot_id: string;
  table_id: string;
  columns_json: string;
  row_count: number;
  created_at: number;
  part_count: number | null;
}

interface TableRow {
  table_id: string;
  name: string;
  file_id: string | null;
}

function failed(error: string, extra: Record<string, unknown> = {}): JobOutcome {
  return { status: 'FAILED', result: { error, ...extra } };
}

/** Runs one job's kind against the store and the uploaded files; the caller writes the outcome. */
export async function runJobKind(db: Queryable, job: JobRow, context: JobKindContext): Promise<JobOutcome> {
  switch (job.job_kind) {
    case 'PARSE_AND_INGEST':
      return parseAndIngest(db, job, context);
    case 'REPARSE':
      return reparse(db, job, context);
    case 'SAMPLE_REFRESH':
      return sampleRefresh(db, job);
    case 'DESCRIBE_PASS':
      return describePass(db, job);
    case 'RELATION_PASS':
      return relationPass(db, job);
  }
}

/**
 * Removes the snapshot parts an earlier run of this job stored and never finished (its worker
 * stopped): run before the job runs again, or fails for good.
 */
export async function discardUnfinishedParts(db: Queryable, jobId: string): Promise<void> {
  await db.run('DELETE FROM ingest_snapshot_parts WHERE ingest_job_id = ? AND NOT EXISTS (SELECT 1 FROM ingest_snapshots s WHERE s.snapshot_id = ingest_snapshot_parts.snapshot_id)', [jobId]);
}

interface FileRow {
  file_id: string;
  filename: string;
  size_bytes: number | string;
  storage: 'store' | 'data_dir';
  sha256: string | null;
  content: Uint8Array | null;
  purged_at: number | null;
}

/** A source file: its name, and a fresh read of its bytes a piece at a time each time `pieces` is called. */
interface SourceFile {
  filename: string;
  pieces: () => AsyncIterable<Uint8Array>;
}

/** The source file: streamed from the data dir (checked against its size and SHA-256), or its BLOB in pieces. */
async function sourceFile(db: Queryable, fileId: string | null, uploads: UploadFiles): Promise<SourceFile | string> {
  if (!fileId) return 'the job has no source file';
  const file = await db.get<FileRow>(
    "SELECT file_id, filename, size_bytes, storage, sha256, CASE WHEN storage = 'store' THEN content END AS content, purged_at FROM ingest_files WHERE file_id = ?",
    [fileId],
  );
  if (!file) return `source file ${fileId} not found`;
  if (file.purged_at !== null) return `source file ${file.filename} was removed by retention; upload it again`;
  if (file.storage === 'store') {
    const content = file.content;
    if (content === null) return `source file ${file.filename} has no content; upload it again`;
    return {
      filename: file.filename,
      pieces: async function* () {
        for (let at = 0; at < content.length; at += READ_PIECE) yield content.subarray(at, at + READ_PIECE);
      },
    };
  }
  return { filename: file.filename, pieces: () => uploads.pieces(file) };
}

/** A snapshot whose parts are stored, waiting for its row (written when the job finishes). */
interface StoredParts {
  snapshotId: string;
  shape: TableShape;
  parts: number;
}

/**
 * Reads the file twice, a piece at a time: the first read checks it and types its columns, the
 * second stores its typed rows as a new snapshot's parts, each in a statement of its own. The
 * snapshot's row, written when the job finishes, is what makes them part of the table; a job
 * that does not finish leaves parts that `discardUnfinishedParts` and the retention pass remove.
 * A bad file or one that changed is the job's error (as a JobOutcome); nothing of it is kept.
 */
async function storeParts(db: Queryable, job: JobRow, file: SourceFile, context: JobKindContext): Promise<StoredParts | JobOutcome> {
  const snapshotId = randomUUID();
  let parts = 0;
  try {
    const shape = await scanCsvTable(file.pieces());
    await readCsvTable(
      file.pieces(),
      shape,
      async (rows: Cell[][]) => {
        await db.run('INSERT INTO ingest_snapshot_parts (snapshot_id, part_no, ingest_job_id, row_count, rows_json) VALUES (?, ?, ?, ?, ?)', [snapshotId, parts, job.ingest_job_id, rows.length, JSON.stringify(rows)]);
        parts += 1;
      },
      context.partLimits,
    );
    return { snapshotId, shape, parts };
  } catch (error) {
    // Best effort: parts left here (the store failing too) go when the job runs again or with the retention pass.
    if (parts > 0) await discardParts(db, snapshotId).catch(() => {});
    if (error instanceof CsvError) return failed(`${file.filename}: ${error.message}`, { file: file.filename });
    if (error instanceof UploadFileError) return failed(error.message);
    throw error;
  }
}

async function discardParts(db: Queryable, snapshotId: string): Promise<void> {
  await db.run('DELETE FROM ingest_snapshot_parts WHERE snapshot_id = ?', [snapshotId]);
}

function snapshotWriter(tableId: string, stored: StoredParts, notBefore: number) {
  return async (tx: Queryable, now: number) => {
    await tx.run("INSERT INTO ingest_snapshots (snapshot_id, table_id, columns_json, rows_json, row_count, part_count, created_at) VALUES (?, ?, ?, '', ?, ?, ?)", [
      stored.snapshotId,
      tableId,
      JSON.stringify(stored.shape.columns),
      stored.shape.rowCount,
      stored.parts,
      Math.max(now, notBefore),
    ]);
  };
}

async function parseAndIngest(db: Queryable, job: JobRow, context: JobKindContext): Promise<JobOutcome> {
  const file = await sourceFile(db, job.file_id, context.uploads);
  if (typeof file === 'string') return failed(file);
  const stored = await storeParts(db, job, file, context);
  if (!('snapshotId' in stored)) return stored;
  const tableId = randomUUID();
  const name = file.filename.replace(/\.[^.]*$/, '') || 'table';
  const writeSnapshot = snapshotWriter(tableId, stored, 0);
  return {
    status: 'SUCCEEDED',
    result: { table_id: tableId, table_name: name, snapshot_id: stored.snapshotId, row_count: stored.shape.rowCount, columns: stored.shape.columns },
    write: async (tx, now) => {
      await tx.run('INSERT INTO ingest_tables (table_id, dataset_id, file_id, name, created_at) VALUES (?, ?, ?, ?, ?)', [tableId, job.dataset_id, job.file_id, name, now]);
      await writeSnapshot(tx, now);
      return { tableId, snapshotId: stored.snapshotId };
    },
    discard: (db) => discardParts(db, stored.snapshotId),
  };
}

async function reparse(db: Queryable, job: JobRow, context: JobKindContext): Promise<JobOutcome> {
  const table = await db.get<TableRow>('SELECT table_id, name, file_id FROM ingest_tables WHERE table_id = ? AND dataset_id = ?', [job.table_id, job.dataset_id]);
  if (!table) return failed(`table ${job.table_id ?? '(none)'} is not a table of the dataset`);
  const file = await sourceFile(db, table.file_id, context.uploads);
  if (typeof file === 'string') return failed(file);
  const stored = await storeParts(db, job, file, context);
  if (!('snapshotId' in stored)) return stored;
  const previous = await latestSnapshot(db, table.table_id);
  const writeSnapshot = snapshotWriter(table.table_id, stored, previous ? Number(previous.created_at) + 1 : 0);
  return {
    status: 'SUCCEEDED',
    result: { table_id: table.table_id, snapshot_id: stored.snapshotId, previous_snapshot_id: previous?.snapshot_id ?? null, row_count: stored.shape.rowCount, columns: stored.shape.columns },
    write: async (tx, now) => {
      await writeSnapshot(tx, now);
      return { snapshotId: stored.snapshotId };
    },
    discard: (db) => discardParts(db, stored.snapshotId),
  };
}

async function latestSnapshot(db: Queryable, tableId: string): Promise<SnapshotRow | undefined> {
  const row = await db.get<SnapshotRow>(
    'SELECT snapshot_id, table_id, columns_json, row_count, created_at, part_count FROM ingest_snapshots WHERE table_id = ? ORDER BY created_at DESC, snapshot_id DESC LIMIT 1',
    [tableId],
  );
  return row && { ...row, row_count: Number(row.row_count), part_count: row.part_count === null ? null : Number(row.part_count) };
}

/** A snapshot's rows, a part at a time (a snapshot from before parts: all of them at once). */
async function* snapshotRows(db: Queryable, snapshot: SnapshotRow): AsyncGenerator<Cell[][]> {
  if (snapshot.part_count === null) {
    const whole = await db.get<{ rows_json: string }>('SELECT rows_json FROM ingest_snapshots WHERE snapshot_id = ?', [snapshot.snapshot_id]);
    yield JSON.parse(whole!.rows_json) as Cell[][];
    return;
  }
  for (let part = 0; part < snapshot.part_count; part++) {
    const stored = await db.get<{ rows_json: string }>('SELECT rows_json FROM ingest_snapshot_parts WHERE snapshot_id = ? AND part_no = ?', [snapshot.snapshot_id, part]);
    if (!stored) throw new Error(`snapshot ${snapshot.snapshot_id} has no part ${part} of ${snapshot.part_count}`);
    yield JSON.parse(stored.rows_json) as Cell[][];
  }
}

interface LoadedTable {
  table: TableRow;
  snapshot: SnapshotRow;
  columns: Column[];
}

/** The job's table (when given) or every table of its dataset, each at its latest snapshot (rows not read). */
async function loadTables(db: Queryable, job: JobRow): Promise<LoadedTable[]> {
  const tables = job.table_id
    ? await db.all<TableRow>('SELECT table_id, name, file_id FROM ingest_tables WHERE table_id = ? AND dataset_id = ?', [job.table_id, job.dataset_id])
    : await db.all<TableRow>('SELECT table_id, name, file_id FROM ingest_tables WHERE dataset_id = ? ORDER BY created_at, table_id', [job.dataset_id]);
  const loaded: LoadedTable[] = [];
  for (const table of tables) {
    const snapshot = await latestSnapshot(db, table.table_id);
    if (snapshot) loaded.push({ table, snapshot, columns: JSON.parse(snapshot.columns_json) as Column[] });
  }
  return loaded;
}

async function sampleRefresh(db: Queryable, job: JobRow): Promise<JobOutcome> {
  const tables = await loadTables(db, job);
  if (tables.length === 0) return failed('the dataset has no ingested tables yet; upload a file first');
  const result = [];
  for (const t of tables) {
    const sample: Cell[][] = [];
    for await (const rows of snapshotRows(db, t.snapshot)) {
      for (const row of rows) if (sample.length < SAMPLE_ROWS) sample.push(row);
      if (sample.length >= SAMPLE_ROWS) break;
    }
    result.push({ table_id: t.table.table_id, name: t.table.name, snapshot_id: t.snapshot.snapshot_id, row_count: t.snapshot.row_count, columns: t.columns.map((c) => c.name), sample });
  }
  return { status: 'SUCCEEDED', result: { tables: result } };
}

/**
 * Each column's statistics, one column at a time over the snapshot's parts: what is held is one
 * part and one column's distinct values.
 */
async function describePass(db: Queryable, job: JobRow): Promise<JobOutcome> {
  const tables = await loadTables(db, job);
  if (tables.length === 0) return failed('the dataset has no ingested tables yet; upload a file first');
  const result = [];
  for (const t of tables) {
    const columns = [];
    for (let c = 0; c < t.columns.length; c++) {
      const stats = new ColumnStats(t.columns[c]!);
      for await (const rows of snapshotRows(db, t.snapshot)) for (const row of rows) stats.add(row[c] ?? null);
      columns.push(stats.result());
    }
    result.push({ table_id: t.table.table_id, name: t.table.name, snapshot_id: t.snapshot.snapshot_id, row_count: t.snapshot.row_count, columns });
  }
  return { status: 'SUCCEEDED', result: { tables: result } };
}

/** One column's statistics, value by value: counts, distinct values, and the range its type has. */
class ColumnStats {
  #count = 0;
  #nulls = 0;
  readonly #distinct = new Set<string>();
  #min: number | string | undefined;
  #max: number | string | undefined;
  #sum = 0;

  constructor(readonly column: Column) {}

  add(value: Cell): void {
    this.#count += 1;
    if (value === null) {
      this.#nulls += 1;
      return;
    }
    this.#distinct.add(JSON.stringify(value));
    const type = this.column.type;
    let measure: number | string;
    if (type === 'integer' || type === 'number') {
      measure = value as number;
      this.#sum += measure;
    } else if (type === 'text') measure = (value as string).length;
    else if (type === 'date' || type === 'timestamp') measure = value as string;
    else return;
    if (this.#min === undefined || measure < this.#min) this.#min = measure;
    if (this.#max === undefined || measure > this.#max) this.#max = measure;
  }

  result(): Record<string, unknown> {
    const present = this.#count - this.#nulls;
    const { name, type } = this.column;
    const stats: Record<string, unknown> = { name, type, count: this.#count, nulls: this.#nulls, distinct: this.#distinct.size };
    if (present === 0) return stats;
    if (type === 'integer' || type === 'number') {
      stats.min = this.#min;
      stats.max = this.#max;
      stats.mean = this.#sum / present;
    } else if (type === 'text') {
      stats.min_length = this.#min;
      stats.max_length = this.#max;
    } else if (type === 'date' || type === 'timestamp') {
      stats.min = this.#min;
      stats.max = this.#max;
    }
    return stats;
  }
}

const FAMILY: Record<Column['type'], string> = { integer: 'num', number: 'num', boolean: 'bool', date: 'date', timestamp: 'ts', text: 'text' };

/**
 * Candidate relations by value inclusion: column A.x refers to B.y when B.y is unique
 * (a candidate key) and at least 95% of A.x's distinct values appear in B.y.
 */
async function relationPass(db: Queryable, job: JobRow): Promise<JobOutcome> {
  const tables = await loadTables(db, { ...job, table_id: null });
  if (tables.length < 2) return { status: 'SUCCEEDED', result: { tables: tables.length, relations: [], note: 'relations need at least two tables in the dataset' } };
  // Every column's distinct values, read a part at a time: what is held is those sets.
  const columnValues: Array<{ table: TableRow; column: Column; set: Set<string>; unique: boolean }> = [];
  for (const t of tables) {
    const sets = t.columns.map(() => new Set<string>());
    const present = t.columns.map(() => 0);
    for await (const rows of snapshotRows(db, t.snapshot)) {
      for (const row of rows) {
        for (let c = 0; c < t.columns.length; c++) {
          const value = row[c] ?? null;
          if (value === null) continue;
          present[c]! += 1;
          sets[c]!.add(JSON.stringify(value));
        }
      }
    }
    t.columns.forEach((column, c) => columnValues.push({ table: t.table, column, set: sets[c]!, unique: sets[c]!.size === present[c] && present[c] === t.snapshot.row_count }));
  }
  const relations: Array<Record<string, unknown>> = [];
  for (const from of columnValues) {
    for (const to of columnValues) {
      if (from.table.table_id === to.table.table_id || !to.unique || from.set.size === 0 || FAMILY[from.column.type] !== FAMILY[to.column.type] || from.column.type === 'boolean') continue;
      let inside = 0;
      for (const v of from.set) if (to.set.has(v)) inside += 1;
      const coverage = inside / from.set.size;
      if (coverage >= RELATION_MIN_COVERAGE) {
        relations.push({ from_table: from.table.name, from_table_id: from.table.table_id, from_column: from.column.name, to_table: to.table.name, to_table_id: to.table.table_id, to_column: to.column.name, coverage: Math.round(coverage * 1000) / 1000 });
      }
    }
  }
  return { status: 'SUCCEEDED', result: { tables: tables.length, relations } };
}
