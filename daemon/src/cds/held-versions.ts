import type { ClusterSnapshot } from './snapshot.js';

/** The client dropped this name (unsubscribed) although the base snapshot has it. */
const NOT_HELD = Symbol('not held');
type Entry = string | null | typeof NOT_HELD;

/**
 * What one delta client holds: name -> resource version, or null once told the name is removed.
 * Stored as a reference to a snapshot the client holds in full (shared by every stream in sync
 * with it) plus the few names where the client differs from it, so a wildcard stream over ten
 * thousand clusters keeps a handful of entries instead of ten thousand.
 */
export class HeldVersions {
  #base: ClusterSnapshot | null = null;
  readonly #diff = new Map<string, Entry>();

  /** The snapshot the client holds (apart from the differing names), or null. */
  get base(): ClusterSnapshot | null {
    return this.#base;
  }

  /** Names where the client differs from the base. */
  differing(): IterableIterator<string> {
    return this.#diff.keys();
  }

  get(name: string): string | null | undefined {
    const entry = this.#diff.get(name);
    if (entry === NOT_HELD) return undefined;
    if (entry !== undefined) return entry;
    return this.#base?.byName.get(name)?.version;
  }

  set(name: string, version: string | null): void {
    if (version !== null && this.#base?.byName.get(name)?.version === version) this.#diff.delete(name);
    else this.#diff.set(name, version);
  }

  delete(name: string): void {
    if (this.#base?.byName.has(name)) this.#diff.set(name, NOT_HELD);
    else this.#diff.delete(name);
  }

  /**
   * The client now holds every cluster of `snapshot` at its version, and knows `removed` are gone
   * (names it asked for by name that do not exist). Other names it was told were removed are
   * forgotten: they are resent when they appear either way.
   */
  rebase(snapshot: ClusterSnapshot, removed: Iterable<string>): void {
    this.#base = snapshot;
    this.#diff.clear();
    for (const name of removed) if (!snapshot.byName.has(name)) this.#diff.set(name, null);
  }
}
