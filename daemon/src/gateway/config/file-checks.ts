import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AttrReader } from './attr-reader.js';
import type { Diagnostics } from './diagnostics.js';

export type FileKind = 'file' | 'directory' | 'pem';

/**
 * Resolves `*_file` and `document_root` attributes and checks at load that they can be
 * read, so a typo fails the load instead of the first request. Relative paths are taken
 * from the directory of the configuration file that names them, as the peer does, so a
 * file split into several keeps working from any working directory.
 */
export class FileChecks {
  private readonly seen = new Set<string>();
  private checks = 0;

  constructor(private readonly diags: Diagnostics) {}

  /** How many attributes named a path so far, the same path twice counted twice. */
  get count(): number {
    return this.checks;
  }

  /** Every path checked so far, sorted, for reload watchers. */
  get referenced(): string[] {
    return [...this.seen].sort();
  }

  /** The absolute path, or null when the attribute is absent or the file is unusable (then reported). */
  path(r: AttrReader, name: string, kind: FileKind): string | null {
    const value = r.value<string>(name);
    const attr = r.attr(name);
    if (value === undefined || !attr) return null;
    this.checks += 1;
    const path = resolve(dirname(attr.range.filename), value);
    this.seen.add(path);
    const problem = unusable(path, kind);
    if (problem === undefined) return path;
    const shown = value === path ? JSON.stringify(value) : `${JSON.stringify(value)} (${path})`;
    this.diags.error('Unreadable file', `The ${name} ${shown} ${problem}.`, attr.expr.range);
    return null;
  }
}

function unusable(path: string, kind: FileKind): string | undefined {
  try {
    const stat = statSync(path);
    if (kind === 'directory' && !stat.isDirectory()) return 'is not a directory';
    if (kind !== 'directory' && !stat.isFile()) return 'is not a regular file';
    accessSync(path, constants.R_OK);
    if (kind === 'pem' && !readFileSync(path, 'latin1').includes('-----BEGIN CERTIFICATE-----')) return 'holds no PEM certificate';
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'does not exist';
    if (code === 'EACCES') return 'cannot be read: permission denied';
    return `cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  }
}
