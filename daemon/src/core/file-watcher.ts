/**
 * The one debounced file watcher, for the gateway configuration, the configuration that
 * `--mode cds` loads itself, and the infosessions CSV files.
 *
 * It watches the directories holding the files (not the files themselves), so an editor that
 * saves by writing a temporary file and renaming it over the original (vim, atomic writes), or
 * by deleting and creating the file, is seen like a plain write; chokidar's `atomic` folds a
 * delete followed by a create into one change. Events for other entries of those directories
 * (swap files, backups) are ignored. Events within `debounceMs` of each other are one burst,
 * reported once with every path it touched, so one save is one reload.
 *
 * chokidar drops a `change` of a path within 50 ms of the last one it reported (its own
 * throttle), so a save that quickly follows another would go unseen whenever the burst had
 * already been reported by then. The watcher therefore also counts chokidar's `raw` events,
 * every event of the underlying `fs.watch`, unthrottled; with them the debounce can be shorter
 * than chokidar's throttle and no write goes unseen.
 */
import { watch, type FSWatcher } from 'chokidar';
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** A directory whose entries with a name ending in `suffix` count, including entries added later. */
export interface WatchedDirectory {
  readonly path: string;
  readonly suffix: string;
}

/** What to watch: exact files (one that does not exist yet counts when created) and directories. */
export interface WatchSet {
  readonly files: readonly string[];
  readonly directories?: readonly WatchedDirectory[];
}

export interface FileWatcherOptions {
  /** Quiet time after the last event before `onChange` (editors write in bursts). */
  debounceMs?: number;
  /** A directory that cannot be watched (vanished, permissions); the next load reports the files. */
  onError?(error: unknown): void;
}

/**
 * The quiet time that ends a burst. An editor's steps of one save (write a temporary file and
 * rename it; truncate and write; rename to a backup and create) come within a millisecond or
 * two of each other, so 25 ms folds them with room to spare; it is most of the time from a
 * save to the new configuration serving (docs/gateway.md, "Performance").
 */
export const DEFAULT_DEBOUNCE_MS = 25;

export class FileWatcher {
  readonly #onChange: (paths: string[]) => void;
  readonly #debounceMs: number;
  readonly #onError: (error: unknown) => void;
  #watcher: FSWatcher | null = null;
  #files = new Set<string>();
  #suffixes = new Map<string, string[]>();
  #watchedDirectories = new Set<string>();
  #burst = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(onChange: (paths: string[]) => void, { debounceMs = DEFAULT_DEBOUNCE_MS, onError = () => {} }: FileWatcherOptions = {}) {
    this.#onChange = onChange;
    this.#debounceMs = debounceMs;
    this.#onError = onError;
  }

  /** The paths watched now, for status views: files, and `dir/*suffix` for directories. */
  get watching(): string[] {
    const directories = [...this.#suffixes].flatMap(([dir, suffixes]) => suffixes.map((s) => `${dir}/*${s}`));
    return [...this.#files, ...directories].sort();
  }

  /** Starts watching `set` (again, after close), or moves the watch to it; resolves once the new directories are ready. */
  async update(set: WatchSet): Promise<void> {
    this.#closed = false;
    this.#files = new Set(set.files.map((f) => resolve(f)));
    const suffixes = new Map<string, string[]>();
    for (const d of set.directories ?? []) {
      const path = resolve(d.path);
      suffixes.set(path, [...new Set([...(suffixes.get(path) ?? []), d.suffix])]);
    }
    this.#suffixes = suffixes;
    const wanted = new Set([...suffixes.keys(), ...(await existingParents([...this.#files]))]);
    const same = wanted.size === this.#watchedDirectories.size && [...wanted].every((d) => this.#watchedDirectories.has(d));
    if (this.#closed || (same && this.#watcher)) return;
    this.#watchedDirectories = wanted;
    if (wanted.size === 0) {
      // Nothing that exists to watch (every file's directory is missing): chokidar given no path
      // never reports ready, so there is no watcher until a later update names one that exists.
      const old = this.#watcher;
      this.#watcher = null;
      await old?.close();
      return;
    }
    // chokidar emits `ready` once per watcher, so a changed set gets a new watcher; the old
    // one closes only after the new one is ready, so no save in between goes unseen.
    // Other entries of the directories are not watched: chokidar would otherwise watch each one
    // and stat it on every write (a log file beside the configuration: hundreds of stats a
    // second). The directories' own events still arrive, raw ones included.
    const next = watch([...wanted], { ignoreInitial: true, depth: 0, atomic: true, ignored: (path) => this.#ignores(path) });
    next.on('all', (_event, path) => this.#seen(path));
    next.on('raw', (_event, name, details) => this.#seenRaw(name, details));
    next.on('error', (error) => this.#onError(error));
    await new Promise<void>((ready) => next.once('ready', () => ready()));
    if (this.#closed) {
      await next.close();
      return;
    }
    const old = this.#watcher;
    this.#watcher = next;
    await old?.close();
  }

  /** Stops watching; a burst not yet reported is dropped. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#burst.clear();
    const watcher = this.#watcher;
    this.#watcher = null;
    await watcher?.close();
  }

  #seen(path: string): void {
    const full = resolve(path);
    if (this.#closed || !this.#counts(full)) return;
    this.#burst.add(full);
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      const paths = [...this.#burst].sort();
      this.#burst.clear();
      this.#onChange(paths);
    }, this.#debounceMs);
  }

  /**
   * A raw `fs.watch` event: of a watched directory (`name` is the entry's name) or of a file
   * chokidar watches on its own (`watchedPath` is the file).
   */
  #seenRaw(name: unknown, details: unknown): void {
    const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
    if (typeof watched !== 'string') return;
    const path = resolve(watched);
    if (this.#watchedDirectories.has(path)) {
      if (typeof name === 'string' && name !== '') this.#seen(join(path, name));
    } else {
      this.#seen(path);
    }
  }

  /** Entries of the watched directories that count for nothing (the directories themselves count). */
  #ignores(path: string): boolean {
    const full = resolve(path);
    return !this.#watchedDirectories.has(full) && !this.#counts(full);
  }

  /** What chokidar watches now, as `directory → entries` (for tests). */
  watchedEntries(): Record<string, string[]> {
    return this.#watcher?.getWatched() ?? {};
  }

  #counts(path: string): boolean {
    if (this.#files.has(path)) return true;
    const suffixes = this.#suffixes.get(dirname(path));
    return suffixes !== undefined && suffixes.some((s) => path.endsWith(s));
  }
}

/** The directory of each file, when it exists (a missing directory cannot be watched; the load reports the missing file). */
async function existingParents(files: readonly string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const file of files) {
    const parent = dirname(file);
    try {
      if ((await stat(parent)).isDirectory()) out.add(parent);
    } catch {
      // Left out: see above.
    }
  }
  return [...out];
}
