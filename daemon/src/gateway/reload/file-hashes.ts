import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/**
 * The SHA-256 of each file's bytes; a directory (a document root) hashes as `directory` and a
 * missing or unreadable file as `missing`, so "the content changed" is one string compare.
 */
export async function hashFiles(paths: readonly string[]): Promise<Map<string, string>> {
  // At once: each read is several thread-pool round trips, and a reload waits for the last.
  return new Map(await Promise.all(paths.map(async (path) => [path, await hashFile(path)] as const)));
}

async function hashFile(path: string): Promise<string> {
  try {
    return createHash('sha256').update(await readFile(path)).digest('hex');
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
