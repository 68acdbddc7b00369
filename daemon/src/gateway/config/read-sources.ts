import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseReusing, type Body, type ParseState } from '../../hcl/index.js';
import type { Diagnostics } from './diagnostics.js';

export interface SourceFile {
  readonly path: string;
  readonly sha256: string;
}

export interface ParsedFile {
  readonly path: string;
  readonly body: Body;
  /** False when the file had syntax errors: its body is partial and is not merged. */
  readonly clean: boolean;
}

/**
 * The last clean parse of each file read most recently, so a save that changed one block of a
 * large file parses that block again and takes the others over (hcl/reuse.ts): a 10,000-backend
 * file's parse was most of its reload. Keyed by path, the most recently read last.
 */
const lastParses = new Map<string, ParseState>();
const KEPT_PARSES = 32;

/**
 * Drops the parse kept for `path`: for a file read once and removed (a validated candidate's
 * temporary file), whose parse, a large configuration's text, tokens and tree, would otherwise
 * stay until 32 other files had been read.
 */
export function forgetParse(path: string): void {
  lastParses.delete(path);
}

/** The files whose parse is kept for their next read (tests). */
export function keptParsePaths(): string[] {
  return [...lastParses.keys()];
}

/**
 * Reads and parses every file in order; a directory stands for its `*.hcl` files in name
 * order (as `-d` does). Unreadable files and invalid UTF-8 are diagnostics, like syntax
 * errors, so one run reports every broken file. With `given` texts, `paths` are the files
 * they came from (directories already expanded) and a file found there is not read.
 *
 * The reads are synchronous, like those of the files a configuration names (keys, htpasswd,
 * metadata): the parse that follows blocks for longer than reading a configuration file does,
 * and each asynchronous read was several thread-pool round trips that, under load, each waited
 * for a turn of the event loop (half of a reload's time on a busy 2-core machine).
 */
export function readSources(paths: readonly string[], diags: Diagnostics, given?: ReadonlyMap<string, string>): { files: ParsedFile[]; sources: SourceFile[]; texts: Map<string, string> } {
  const files: ParsedFile[] = [];
  const sources: SourceFile[] = [];
  const texts = new Map<string, string>();
  for (const path of given ? paths : expandDirectories(paths, diags)) {
    let bytes: Buffer;
    try {
      const text = given?.get(path);
      bytes = text === undefined ? readFileSync(path) : Buffer.from(text, 'utf8');
    } catch (error) {
      diags.error(`${path}: ${reason(error)}`, '');
      continue;
    }
    sources.push({ path, sha256: createHash('sha256').update(bytes).digest('hex') });
    const source = bytes.toString('utf8');
    texts.set(path, source);
    const before = diags.list.length;
    checkEncoding(path, bytes, source, diags);
    const previous = lastParses.get(path);
    const parsed = parseReusing(source, path, previous);
    // A save with syntax errors keeps the last clean parse: the save that fixes it is compared with that one.
    const state = parsed.state ?? previous;
    lastParses.delete(path);
    if (state) {
      lastParses.set(path, state);
      if (lastParses.size > KEPT_PARSES) lastParses.delete(lastParses.keys().next().value as string);
    }
    diags.add(parsed.diagnostics);
    files.push({ path, body: parsed.body, clean: diags.list.length === before });
  }
  return { files, sources, texts };
}

function expandDirectories(paths: readonly string[], diags: Diagnostics): string[] {
  const out: string[] = [];
  for (const path of paths) {
    let isDirectory = false;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      // Reported when the file is read, with the reason.
    }
    if (!isDirectory) {
      out.push(path);
      continue;
    }
    const names = readdirSync(path).filter((n) => n.endsWith('.hcl')).sort();
    if (names.length === 0) diags.error(`${path}: directory holds no *.hcl file`, '');
    out.push(...names.map((n) => join(path, n)));
  }
  return out;
}

/** Invalid UTF-8 is reported at the first bad byte, with upstream's wording. */
function checkEncoding(path: string, bytes: Buffer, source: string, diags: Diagnostics): void {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return;
  } catch {
    // Fall through to locate the first replacement character.
  }
  const bad = Math.max(source.indexOf('\ufffd'), 0);
  const before = source.slice(0, bad);
  const line = before.split('\n').length;
  const column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
  const start = { line, column, byte: Buffer.byteLength(before) };
  diags.error(
    'Invalid character encoding',
    'All input files must be UTF-8 encoded. Ensure that UTF-8 encoding is selected in your editor.',
    { filename: path, start, end: { line, column: column + 1, byte: start.byte + 1 } },
  );
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'file not found';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return error instanceof Error ? error.message : String(error);
}
