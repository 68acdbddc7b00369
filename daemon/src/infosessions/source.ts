import { readFile } from 'node:fs/promises';
import { readBuildingRows } from './buildings.js';
import type { CsvFileStatus, InfosessionsSourceStatus } from './control-types.js';
import { CsvSyntaxError, parseCsv } from '../core/csv.js';
import { FileWatcher } from '../core/file-watcher.js';
import { jsonDataBytes, renderXmlData } from './envelope.js';
import { LayoutError, readSessionRows, type BuildingTable } from './layout.js';
import type { Infosession, RowProblem, SessionEntry } from './record.js';

/** The sessions serving now, with their renderings cached (made once per reload, on first use). */
export class SessionSnapshot {
  readonly records: readonly Infosession[];
  #json: Buffer | null = null;
  #xml: Buffer | null = null;

  constructor(readonly entries: readonly SessionEntry[]) {
    this.records = entries.map((e) => e.record);
  }

  /** The `data` list as UTF-8 JSON. */
  get dataJson(): Buffer {
    return (this.#json ??= jsonDataBytes(this.records));
  }

  /** The `<data>` element as UTF-8 XML. */
  get dataXml(): Buffer {
    return (this.#xml ??= Buffer.from(renderXmlData(this.records), 'utf8'));
  }
}

/** What one (re)load did, for logs and events. */
export interface ReloadResult {
  file: string;
  applied: boolean;
  rows: number;
  rejected: RowProblem[];
  warnings: RowProblem[];
  error: string | null;
}

export interface SourceFiles {
  sessions: string;
  buildings: string;
}

interface FileState {
  loadedAt: number | null;
  rows: number;
  rejected: RowProblem[];
  warnings: RowProblem[];
  error: { message: string; at: number } | null;
}

const emptyState = (): FileState => ({ loadedAt: null, rows: 0, rejected: [], warnings: [], error: null });

/** Reads a file as UTF-8, refusing bytes that are not (the legacy Windows-1252 files go through the importer). */
async function readUtf8(file: string): Promise<string> {
  const bytes = await readFile(file);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new LayoutError('the file is not valid UTF-8; save it as UTF-8 (portico infosessions import converts legacy Windows-1252 files)');
  }
}

function describe(error: unknown): string {
  if (error instanceof CsvSyntaxError || error instanceof LayoutError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'the file does not exist';
  if (code === 'EACCES') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}

/**
 * The CSV source: sessions from our layout, building facts by code from the buildings table.
 * Loaded at start and on every save; a row that is wrong is skipped and reported, a file that
 * cannot be read as a whole leaves the previous data serving and reports why.
 */
export class InfosessionsSource {
  #snapshot = new SessionSnapshot([]);
  #buildings: BuildingTable = new Map();
  #sessionsState = emptyState();
  #buildingsState = emptyState();
  readonly #watcher = new FileWatcher(() => void this.load());
  #reloading: Promise<void> = Promise.resolve();

  constructor(
    readonly files: SourceFiles,
    private readonly onReload: (result: ReloadResult) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  get snapshot(): SessionSnapshot {
    return this.#snapshot;
  }

  /** Loads both files; resolves when done (also when a file is bad: that is reported, not thrown). */
  async load(): Promise<void> {
    const run = this.#reloading.then(async () => {
      await this.#loadBuildings();
      this.onReload(await this.#loadSessions());
    });
    this.#reloading = run.catch(() => {});
    return run;
  }

  /** Loads, then reloads on every save of either file (the shared watcher: one save, one reload). */
  async start(): Promise<void> {
    await this.load();
    await this.#watcher.update({ files: [this.files.sessions, this.files.buildings] });
  }

  async stop(): Promise<void> {
    await this.#watcher.close();
    await this.#reloading;
  }

  status(): InfosessionsSourceStatus {
    return { sessions: view(this.files.sessions, this.#sessionsState), buildings: view(this.files.buildings, this.#buildingsState) };
  }

  async #loadBuildings(): Promise<void> {
    const at = this.now();
    try {
      const loaded = readBuildingRows(parseCsv(await readUtf8(this.files.buildings)));
      this.#buildings = loaded.table;
      this.#buildingsState = { loadedAt: at, rows: loaded.table.size, rejected: loaded.rejected, warnings: [], error: null };
    } catch (error) {
      this.#buildingsState = { ...this.#buildingsState, error: { message: describe(error), at } };
    }
  }

  async #loadSessions(): Promise<ReloadResult> {
    const at = this.now();
    const file = this.files.sessions;
    try {
      const loaded = readSessionRows(parseCsv(await readUtf8(file)), this.#buildings);
      this.#snapshot = new SessionSnapshot(loaded.sessions);
      this.#sessionsState = { loadedAt: at, rows: loaded.sessions.length, rejected: loaded.rejected, warnings: loaded.warnings, error: null };
      return { file, applied: true, rows: loaded.sessions.length, rejected: loaded.rejected, warnings: loaded.warnings, error: null };
    } catch (error) {
      const message = describe(error);
      this.#sessionsState = { ...this.#sessionsState, error: { message, at } };
      return { file, applied: false, rows: this.#snapshot.entries.length, rejected: [], warnings: [], error: message };
    }
  }
}

function view(file: string, s: FileState): CsvFileStatus {
  return {
    file,
    loadedAt: s.loadedAt === null ? null : new Date(s.loadedAt).toISOString(),
    rows: s.rows,
    rejected: s.rejected,
    warnings: s.warnings,
    error: s.error ? { message: s.error.message, at: new Date(s.error.at).toISOString() } : null,
  };
}
