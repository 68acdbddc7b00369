import { randomUUID } from 'node:crypto';
import type { Queryable } from '../store/types.js';
import { CsvError, parseCsvTable, type Cell, type Column, type ParsedTable } from './csv-table.js';
import type { JobRow } from './records.js';
import { UploadFileError, type UploadFiles } from './upload-files.js';

/** What a job produced; `write` stores it in the transaction that also finishes the job. */
export interface JobOutcome {
  status: 'SUCCEEDED' | 'FAILED';
  result: Record<string, unknown>;
  write?: (tx: Queryable, now: number) => Promise<{ tableId?: string; snapshotId?: string }>;
}

const SAMPLE_ROWS = 10;
const RELATION_MIN_COVERAGE = 0.95;

interface SnapshotRow {
  snapshot_id: string;
  table_id: string;
  columns_json: string;
  rows_json: string;
  row_count: number;
  created_at: number;
}

interface TableRow {
  table_id: string;
  name: string;
  file_id: string | null;
}

function failed(error: string, extra: Record<string, unknown> = {}): JobOutcome {
  return { status: 'FAILED', result: { error, ...extra } };
}

/** Runs one job's kind against the store and the uploaded files (reads only); the caller writes the outcome. */
export async function runJobKind(db: Queryable, job: JobRow, uploads: UploadFiles): Promise<JobOutcome> {
  switch (job.job_kind) {
    case 'PARSE_AND_INGEST':
      return parseAndIngest(db, job, uploads);
    case 'REPARSE':
      return reparse(db, job, uploads);
    case 'SAMPLE_REFRESH':
      return sampleRefresh(db, job);
    case 'DESCRIBE_PASS':
      return describePass(db, job);
    case 'RELATION_PASS':
      return relationPass(db, job);
  }
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

/** The source file's bytes: streamed from the data dir (checked against its size and SHA-256), or its BLOB. */
async function fileContent(db: Queryable, fileId: string | null, uploads: UploadFiles): Promise<{ filename: string; content: Uint8Array } | string> {
  if (!fileId) return 'the job has no source file';
  const file = await db.get<FileRow>('SELECT file_id, filename, size_bytes, storage, sha256, content, purged_at FROM ingest_files WHERE file_id = ?', [fileId]);
  if (!file) return `source file ${fileId} not found`;
  if (file.purged_at !== null) return `source file ${file.filename} was removed by retention; upload it again`;
  if (file.storage === 'store') return file.content === null ? `source file ${file.filename} has no content; upload it again` : { filename: file.filename, content: file.content };
  try {
    return { filename: file.filename, content: await uploads.read(file) };
  } catch (error) {
    if (error instanceof UploadFileError) return error.message;
    throw error;
  }
}

function parsed(content: Uint8Array): ParsedTable | string {
  try {
    return parseCsvTable(content);
  } catch (error) {
    if (error instanceof CsvError) return error.message;
    throw error;
  }
}

function snapshotWriter(tableId: string, table: ParsedTable, notBefore: number) {
  const snapshotId = randomUUID();
  return {
    snapshotId,
    write: async (tx: Queryable, now: number) => {
      await tx.run('INSERT INTO ingest_snapshots (snapshot_id, table_id, columns_json, rows_json, row_count, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        snapshotId,
        tableId,
        JSON.stringify(table.columns),
        JSON.stringify(table.rows),
        table.rows.length,
        Math.max(now, notBefore),
      ]);
    },
  };
}

async function parseAndIngest(db: Queryable, job: JobRow, uploads: UploadFiles): Promise<JobOutcome> {
  const file = await fileContent(db, job.file_id, uploads);
  if (typeof file === 'string') return failed(file);
  const table = parsed(file.content);
  if (typeof table === 'string') return failed(`${file.filename}: ${table}`, { file: file.filename });
  const tableId = randomUUID();
  const name = file.filename.replace(/\.[^.]*$/, '') || 'table';
  const snapshot = snapshotWriter(tableId, table, 0);
  return {
    status: 'SUCCEEDED',
    result: { table_id: tableId, table_name: name, snapshot_id: snapshot.snapshotId, row_count: table.rows.length, columns: table.columns },
    write: async (tx, now) => {
      await tx.run('INSERT INTO ingest_tables (table_id, dataset_id, file_id, name, created_at) VALUES (?, ?, ?, ?, ?)', [tableId, job.dataset_id, job.file_id, name, now]);
      await snapshot.write(tx, now);
      return { tableId, snapshotId: snapshot.snapshotId };
    },
  };
}

async function reparse(db: Queryable, job: JobRow, uploads: UploadFiles): Promise<JobOutcome> {
  const table = await db.get<TableRow>('SELECT table_id, name, file_id FROM ingest_tables WHERE table_id = ? AND dataset_id = ?', [job.table_id, job.dataset_id]);
  if (!table) return failed(`table ${job.table_id ?? '(none)'} is not a table of the dataset`);
  const file = await fileContent(db, table.file_id, uploads);
  if (typeof file === 'string') return failed(file);
  const parsedTable = parsed(file.content);
  if (typeof parsedTable === 'string') return failed(`${file.filename}: ${parsedTable}`, { file: file.filename });
  const previous = await latestSnapshot(db, table.table_id);
  const snapshot = snapshotWriter(table.table_id, parsedTable, previous ? Number(previous.created_at) + 1 : 0);
  return {
    status: 'SUCCEEDED',
    result: { table_id: table.table_id, snapshot_id: snapshot.snapshotId, previous_snapshot_id: previous?.snapshot_id ?? null, row_count: parsedTable.rows.length, columns: parsedTable.columns },
    write: async (tx, now) => {
      await snapshot.write(tx, now);
      return { snapshotId: snapshot.snapshotId };
    },
  };
}

async function latestSnapshot(db: Queryable, tableId: string): Promise<SnapshotRow | undefined> {
  return db.get<SnapshotRow>('SELECT * FROM ingest_snapshots WHERE table_id = ? ORDER BY created_at DESC, snapshot_id DESC LIMIT 1', [tableId]);
}

interface LoadedTable {
  table: TableRow;
  snapshot: SnapshotRow;
  columns: Column[];
  rows: Cell[][];
}

/** The job's table (when given) or every table of its dataset, each at its latest snapshot. */
async function loadTables(db: Queryable, job: JobRow): Promise<LoadedTable[]> {
  const tables = job.table_id
    ? await db.all<TableRow>('SELECT table_id, name, file_id FROM ingest_tables WHERE table_id = ? AND dataset_id = ?', [job.table_id, job.dataset_id])
    : await db.all<TableRow>('SELECT table_id, name, file_id FROM ingest_tables WHERE dataset_id = ? ORDER BY created_at, table_id', [job.dataset_id]);
  const loaded: LoadedTable[] = [];
  for (const table of tables) {
    const snapshot = await latestSnapshot(db, table.table_id);
    if (snapshot) loaded.push({ table, snapshot, columns: JSON.parse(snapshot.columns_json) as Column[], rows: JSON.parse(snapshot.rows_json) as Cell[][] });
  }
  return loaded;
}

async function sampleRefresh(db: Queryable, job: JobRow): Promise<JobOutcome> {
  const tables = await loadTables(db, job);
  if (tables.length === 0) return failed('the dataset has no ingested tables yet; upload a file first');
  return {
    status: 'SUCCEEDED',
    result: {
      tables: tables.map((t) => ({ table_id: t.table.table_id, name: t.table.name, snapshot_id: t.snapshot.snapshot_id, row_count: t.rows.length, columns: t.columns.map((c) => c.name), sample: t.rows.slice(0, SAMPLE_ROWS) })),
    },
  };
}

async function describePass(db: Queryable, job: JobRow): Promise<JobOutcome> {
  const tables = await loadTables(db, job);
  if (tables.length === 0) return failed('the dataset has no ingested tables yet; upload a file first');
  return {
    status: 'SUCCEEDED',
    result: { tables: tables.map((t) => ({ table_id: t.table.table_id, name: t.table.name, snapshot_id: t.snapshot.snapshot_id, row_count: t.rows.length, columns: t.columns.map((c, i) => columnStats(c, t.rows.map((r) => r[i] ?? null))) })) },
  };
}

function columnStats(column: Column, values: Cell[]) {
  const present = values.filter((v): v is Exclude<Cell, null> => v !== null);
  const distinct = new Set(present.map((v) => JSON.stringify(v))).size;
  const stats: Record<string, unknown> = { name: column.name, type: column.type, count: values.length, nulls: values.length - present.length, distinct };
  if (present.length === 0) return stats;
  if (column.type === 'integer' || column.type === 'number') {
    const nums = present as number[];
    stats.min = Math.min(...nums);
    stats.max = Math.max(...nums);
    stats.mean = nums.reduce((a, b) => a + b, 0) / nums.length;
  } else if (column.type === 'text') {
    const lengths = (present as string[]).map((s) => s.length);
    stats.min_length = Math.min(...lengths);
    stats.max_length = Math.max(...lengths);
  } else if (column.type === 'date' || column.type === 'timestamp') {
    const sorted = (present as string[]).slice().sort();
    stats.min = sorted[0];
    stats.max = sorted[sorted.length - 1];
  }
  return stats;
}

const FAMILY: Record<Column['type'], string> = { integer: 'num', number: 'num', boolean: 'bool', date: 'date', timestamp: 'ts', text: 'text' };

/**
 * Candidate relations by value inclusion: column A.x refers to B.y when B.y is unique
 * (a candidate key) and at least 95% of A.x's distinct values appear in B.y.
 */
async function relationPass(db: Queryable, job: JobRow): Promise<JobOutcome> {
  const tables = await loadTables(db, { ...job, table_id: null });
  if (tables.length < 2) return { status: 'SUCCEEDED', result: { tables: tables.length, relations: [], note: 'relations need at least two tables in the dataset' } };
  const columnValues = tables.flatMap((t) =>
    t.columns.map((c, i) => {
      const present = t.rows.map((r) => r[i] ?? null).filter((v) => v !== null);
      const set = new Set(present.map((v) => JSON.stringify(v)));
      return { table: t.table, column: c, set, unique: set.size === present.length && present.length === t.rows.length };
    }),
  );
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
