import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The SHA-256 of each file's bytes; a directory (a document root) hashes as `directory` and a
 * missing or unreadable file as `missing`, so "the content changed" is one string compare.
 * Read synchronously, as the loader reads them (see `readSources`).
 */
export function hashFiles(paths: readonly string[]): Map<string, string> {
  return new Map(paths.map((path) => [path, hashFile(path)] as const));
}

function hashFile(path: string): string {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EISDIR' ? 'directory' : 'missing';
  }
}

/** Paths whose hash differs between the two maps (present in only one counts). */
export function changedPaths(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, hash] of after) if (before.get(path) !== hash) out.push(path);
  for (const path of before.keys()) if (!after.has(path)) out.push(path);
  return out;
}

export function sameHashes(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && changedPaths(a, b).length === 0;
}
