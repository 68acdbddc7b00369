import { watch, type FSWatcher } from 'chokidar';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** What to watch: exact files, and directories whose `*.hcl` entries count. */
export interface WatchSet {
  readonly files: readonly string[];
  readonly hclDirectories: readonly string[];
}

/**
 * Watches the directories holding the configuration files (not the files themselves), so an
 * editor that saves by writing a temporary file and renaming it over the original (vim,
 * atomic writes) is seen like a plain write. Events for other entries of those directories
 * (swap files, backups) are ignored; only the watched paths call `onChange`.
 */
export class ConfigWatcher {
  #watcher: FSWatcher | null = null;
  #files = new Set<string>();
  #hclDirectories = new Set<string>();
  #directories = new Set<string>();
  #closed = false;

  constructor(private readonly onChange: (path: string) => void) {}

  /** The paths watched now, for the status. */
  get watching(): string[] {
    return [...this.#files, ...[...this.#hclDirectories].map((d) => `${d}/*.hcl`)].sort();
  }

  /** Starts watching `set`, or moves the watch to it; resolves once the new directories are ready. */
  async update(set: WatchSet): Promise<void> {
    this.#files = new Set(set.files.map((f) => resolve(f)));
    this.#hclDirectories = new Set(set.hclDirectories.map((d) => resolve(d)));
    const wanted = new Set([...this.#hclDirectories, ...(await parentsOf([...this.#files]))]);
    const same = wanted.size === this.#directories.size && [...wanted].every((d) => this.#directories.has(d));
    if (same && this.#watcher) return;
    this.#directories = wanted;
    // chokidar emits `ready` once per watcher, so a changed set gets a new watcher; the old
    // one closes only after the new one is ready, so no save in between goes unseen.
    const next = watch([...wanted], { ignoreInitial: true, depth: 0, atomic: true });
    next.on('all', (_event, path) => this.#seen(path));
    // A directory that vanishes (or cannot be watched) must not crash the daemon; its files then fail to load.
    next.on('error', () => {});
    await ready(next);
    if (this.#closed) {
      await next.close();
      return;
    }
    const old = this.#watcher;
    this.#watcher = next;
    await old?.close();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const watcher = this.#watcher;
    this.#watcher = null;
    await watcher?.close();
  }

  #seen(path: string): void {
    const full = resolve(path);
    if (this.#files.has(full) || (full.endsWith('.hcl') && this.#hclDirectories.has(dirname(full)))) this.onChange(full);
  }
}

/** The directory of each file; a watched path that is itself a directory (a document root) is watched from its parent too. */
async function parentsOf(files: readonly string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const file of files) {
    const parent = dirname(file);
    try {
      if ((await stat(parent)).isDirectory()) out.add(parent);
    } catch {
      // A missing directory cannot be watched; the load reports the missing file.
    }
  }
  return [...out];
}

function ready(watcher: FSWatcher): Promise<void> {
  return new Promise((resolve) => watcher.once('ready', () => resolve()));
}
