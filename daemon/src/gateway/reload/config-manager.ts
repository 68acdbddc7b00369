import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { configWatchSet } from '../../core/config-sources.js';
import { FileWatcher } from '../../core/file-watcher.js';
import type { LogFields } from '../../core/logger.js';
import { renderExcerpt } from '../../hcl/index.js';
import { loadGatewayConfig } from '../config/load.js';
import { ReusableBackends } from '../config/backend-reuse.js';
import type { GatewayConfig } from '../config/model.js';
import type { ReloadTarget } from '../contracts.js';
import type { ConfigStatus, ReloadDiagnostic, ReloadDiff, ReloadRecord, ReloadTrigger, SourceHash, ValidationResult } from '../control/control-types.js';
import { diffConfigs } from './config-diff.js';
import { changedPaths, hashFiles, sameHashes } from './file-hashes.js';
import { ConfigLoadError, toReloadDiagnostics } from './reload-diagnostics.js';
import { validateCandidate } from './validate-candidate.js';

export interface ReloadLogger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export interface ConfigManagerOptions {
  /** Configuration files in load order; a directory stands for its `*.hcl` files. */
  files: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  target: ReloadTarget;
  logger: ReloadLogger;
  /** Called with every reload record (applied, rejected or failed), the first load included. */
  onReload?(record: ReloadRecord): void;
  /** Quiet time after the last file event before reloading (editors write in bursts). */
  debounceMs?: number;
  historySize?: number;
}

/** The applied configuration and what it was built from. */
interface Active {
  readonly config: GatewayConfig;
  readonly sources: ReadonlyMap<string, string>;
  /** Applied source text per file: the very text loaded, validated and hashed. */
  readonly texts: ReadonlyMap<string, string>;
  readonly referenced: ReadonlyMap<string, string>;
  readonly appliedAt: string;
}

interface Pending {
  trigger: ReloadTrigger;
  waiters: Array<(record: ReloadRecord | null) => void>;
}

/** Explicit asks win over a file event when they are folded into one reload. */
const TRIGGER_RANK: Record<ReloadTrigger, number> = { file: 0, signal: 1, control: 2, start: 3 };

/**
 * Owns the gateway configuration over the daemon's life: loads it at start, watches its
 * files (and every file it references), and reloads on a save, SIGHUP or the control API.
 * Reloads run one at a time; a bad file or a runtime that fails to build keeps the old
 * configuration serving, and every attempt is recorded with its diagnostics.
 */
export class ConfigManager {
  readonly #options: ConfigManagerOptions;
  readonly #files: readonly string[];
  readonly #instance = randomBytes(4).toString('hex');
  readonly #watcher: FileWatcher;
  readonly #history: ReloadRecord[] = [];
  readonly #listeners = new Set<(record: ReloadRecord) => void>();
  #seq = 0;
  #active: Active | null = null;
  #lastAttempt: ReadonlyMap<string, string> | null = null;
  /** The last load's unchanged backends, taken as they are by the next. */
  #reusable = ReusableBackends.EMPTY;
  #running: Promise<void> | null = null;
  #pending: Pending | null = null;
  #watching = false;
  #stopped = false;

  constructor(options: ConfigManagerOptions) {
    this.#options = options;
    this.#files = options.files.map((f) => resolve(f));
    this.#watcher = new FileWatcher(() => this.#fileChanged(), { debounceMs: options.debounceMs });
  }

  /** The configuration serving now; null before the first applied load. */
  get config(): GatewayConfig | null {
    return this.#active?.config ?? null;
  }

  /**
   * Loads and applies the configuration, then starts watching. Rejects with every
   * diagnostic (`file:line,col-col: summary; detail`, one per line) when it does not load.
   */
  async start(): Promise<GatewayConfig> {
    const record = await this.#request('start');
    if (!record || record.result !== 'applied' || !this.#active) {
      // At start the operator reads this on the terminal: each problem with its lines, as `config check` prints them.
      const lines = record?.result === 'failed' ? [`configuration could not be applied: ${record.error ?? 'unknown error'}`] : errorLines(record?.diagnostics ?? [], true);
      throw new ConfigLoadError(lines.join('\n'), record?.diagnostics ?? []);
    }
    this.#watching = true;
    await this.#refreshWatch();
    return this.#active.config;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#watcher.close();
    await this.#running;
  }

  /** Reloads now (queued behind a reload under way); resolves with its record. */
  async reload(trigger: 'control' | 'signal' = 'control'): Promise<ReloadRecord> {
    const record = await this.#request(trigger);
    // Only a file trigger may be skipped, and an explicit ask upgrades the trigger it joins.
    if (!record) throw new Error('the reload did not complete; see the daemon log');
    return record;
  }

  /** For the daemon's SIGHUP handler: reloads, logging instead of throwing. */
  onSignal(): void {
    this.reload('signal').catch((error: unknown) => this.#options.logger.error('config reload on SIGHUP failed', { error: String(error) }));
  }

  /** Called for each reload record; returns an unsubscribe function. */
  onRecord(listener: (record: ReloadRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  status(): ConfigStatus {
    return {
      files: [...(this.#active?.sources ?? new Map<string, string>())].map(([path, sha256]) => ({ path, sha256 })),
      appliedAt: this.#active?.appliedAt ?? null,
      last: this.#history[0] ?? null,
      watching: this.#watching ? this.#watcher.watching : [],
    };
  }

  /** The last reloads, newest first. */
  history(): ReloadRecord[] {
    return [...this.#history];
  }

  /** The applied source of each file (not redacted: callers that show it must redact). */
  activeSources(): Array<{ path: string; sha256: string; text: string | null }> {
    const active = this.#active;
    if (!active) return [];
    return [...active.sources].map(([path, sha256]) => ({ path, sha256, text: active.texts.get(path) ?? null }));
  }

  /**
   * Loads `text` without applying it: alone, or in place of the active file `file` (a path
   * or a file name) among the others. Throws CandidateFileError when `file` is not one of them.
   */
  async validate(text: string, file?: string): Promise<ValidationResult> {
    const active = this.#active;
    const result = await validateCandidate({ files: this.#files, text, file, env: this.#options.env });
    let diff: ReloadDiff | null = null;
    if (result.config) {
      const sources = new Map(result.sources.map((s) => [s.path, s.sha256]));
      diff = diffConfigs(active?.config ?? null, result.config, changedPaths(active?.sources ?? new Map(), sources));
    }
    return { ok: result.config !== null, file: result.file, diagnostics: result.diagnostics, diff };
  }

  /** A burst of file events, already debounced by the watcher. */
  #fileChanged(): void {
    if (!this.#stopped) void this.#request('file');
  }

  /** Runs a reload now, or folds it into the one queued behind the reload under way. */
  #request(trigger: ReloadTrigger): Promise<ReloadRecord | null> {
    return new Promise((resolveRecord) => {
      if (this.#pending) {
        if (TRIGGER_RANK[trigger] > TRIGGER_RANK[this.#pending.trigger]) this.#pending.trigger = trigger;
        this.#pending.waiters.push(resolveRecord);
        return;
      }
      this.#pending = { trigger, waiters: [resolveRecord] };
      if (!this.#running) this.#running = this.#drain();
    });
  }

  async #drain(): Promise<void> {
    while (this.#pending) {
      const { trigger, waiters } = this.#pending;
      this.#pending = null;
      let record: ReloadRecord | null = null;
      try {
        record = await this.#reloadOnce(trigger);
      } catch (error) {
        this.#options.logger.error('config reload crashed', { error: String(error) });
      }
      for (const resolveRecord of waiters) resolveRecord(record);
    }
    this.#running = null;
  }

  async #reloadOnce(trigger: ReloadTrigger): Promise<ReloadRecord | null> {
    const startedAt = new Date();
    const started = performance.now();
    const loaded = await loadGatewayConfig(this.#files, this.#options.env, { reuse: this.#reusable });
    this.#reusable = loaded.reusable;
    const sources = new Map(loaded.sources.map((s) => [s.path, s.sha256]));
    const previous = this.#active;
    // A rejected attempt counts the files it named too: creating the missing one it complained about is a change.
    const referenced = hashFiles(loaded.config?.referencedFiles ?? [...new Set([...(previous?.referenced.keys() ?? []), ...loaded.referencedFiles])]);
    const attempt = new Map([...sources, ...[...referenced].map(([p, h]) => [`ref:${p}`, h] as const)]);
    if (trigger === 'file' && this.#lastAttempt && sameHashes(this.#lastAttempt, attempt)) {
      this.#options.logger.debug('config files touched but unchanged; not reloading');
      return null;
    }
    this.#lastAttempt = attempt;
    // Excerpts from the text just loaded: for a rejected save, the file as saved, not the one serving.
    const diagnostics = toReloadDiagnostics(loaded.diagnostics, { texts: loaded.texts });
    const base = { trigger, startedAt: startedAt.toISOString(), diagnostics, sources: loaded.sources.map((s): SourceHash => ({ path: s.path, sha256: s.sha256 })) };
    if (!loaded.config) {
      const record = this.#finish({ ...base, result: 'rejected', diff: null, error: null }, started);
      // Watch what the rejected files name as well, so fixing a missing or broken referenced file reloads.
      await this.#refreshWatch(loaded.referencedFiles);
      return record;
    }

    try {
      await this.#options.target.apply(loaded.config, { texts: loaded.texts });
    } catch (error) {
      return this.#finish({ ...base, result: 'failed', diff: null, error: error instanceof Error ? error.message : String(error) }, started);
    }
    // Only the record reads the diff, so it is made once the new configuration serves: comparing
    // every block's canonical form took a few ms of each save's way to serving (a third of the
    // daemon's part of a 2-process reload of the benchmark's configuration).
    const changed = [...changedPaths(previous?.sources ?? new Map(), sources), ...changedPaths(previous?.referenced ?? new Map(), referenced)];
    const diff = diffConfigs(previous?.config ?? null, loaded.config, previous ? changed : []);
    this.#active = { config: loaded.config, sources, texts: loaded.texts, referenced, appliedAt: new Date().toISOString() };
    const record = this.#finish({ ...base, result: 'applied', diff, error: null }, started);
    await this.#refreshWatch();
    return record;
  }

  #finish(partial: Omit<ReloadRecord, 'id' | 'durationMs'>, started: number): ReloadRecord {
    this.#seq += 1;
    const record: ReloadRecord = { id: `${this.#instance}:${this.#seq}`, durationMs: Math.round((performance.now() - started) * 10) / 10, ...partial };
    this.#history.unshift(record);
    this.#history.length = Math.min(this.#history.length, this.#options.historySize ?? 50);
    this.#log(record);
    this.#options.onReload?.(record);
    for (const listener of this.#listeners) listener(record);
    return record;
  }

  #log(record: ReloadRecord): void {
    const fields = { reload: record.id, trigger: record.trigger, duration_ms: record.durationMs };
    const { logger } = this.#options;
    // A refused configuration leaves the active one; at start there is none yet.
    const keeps = this.#active ? '; the previous one keeps serving' : '';
    if (record.result === 'applied') logger.info(`gateway configuration applied (${record.trigger}): ${record.diff?.summary ?? ''}`, fields);
    else if (record.result === 'failed') logger.error(`gateway configuration not applied (${record.trigger}): ${record.error ?? ''}${keeps}`, fields);
    else logger.error(`gateway configuration rejected (${record.trigger})${keeps}:\n${errorLines(record.diagnostics).join('\n')}`, fields);
  }

  /** Watches the configuration files, the directories given, every file the applied configuration references, and `extra`. */
  async #refreshWatch(extra: readonly string[] = []): Promise<void> {
    if (!this.#watching || this.#stopped) return;
    await this.#watcher.update(await configWatchSet(this.#files, [...(this.#active?.config.referencedFiles ?? []), ...extra]));
  }
}

function errorLines(diagnostics: readonly ReloadDiagnostic[], withExcerpts = false): string[] {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  return (errors.length > 0 ? errors : diagnostics).flatMap((d) => [d.text, ...(withExcerpts && d.excerpt ? renderExcerpt(d.excerpt).map((l) => `  ${l.text}`) : [])]);
}

