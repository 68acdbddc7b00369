import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { PorticoError } from '../../core/errors.js';
import { loadGatewayConfig } from '../config/load.js';
import { forgetParse } from '../config/read-sources.js';
import type { GatewayConfig } from '../config/model.js';
import type { ReloadDiagnostic } from '../control/control-types.js';
import { toReloadDiagnostics } from './reload-diagnostics.js';

/** The name diagnostics use for a candidate validated alone. */
export const CANDIDATE_NAME = '<candidate>';

/** `file` does not name one of the active configuration files. */
export class CandidateFileError extends PorticoError {
  override name = 'CandidateFileError';
  constructor(message: string) {
    super('candidate_file_unknown', message, { category: 'invalid' });
  }
}

export interface CandidateInput {
  /** The configuration's arguments (files and directories) in load order. */
  files: readonly string[];
  text: string;
  file?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
}

export interface CandidateResult {
  file: string;
  config: GatewayConfig | null;
  diagnostics: ReloadDiagnostic[];
  sources: Array<{ path: string; sha256: string }>;
}

/**
 * Loads a candidate text without applying it. The text is written beside the file it
 * stands for (so relative `error_file`, `document_root`, ... resolve as they would after a
 * save) under a hidden name no watcher or directory load picks up, and diagnostics name the
 * file it stands for. Alone, it sits beside the first configuration file.
 */
export async function validateCandidate({ files, text, file, env }: CandidateInput): Promise<CandidateResult> {
  const expanded = await expand(files);
  const target = file === undefined ? null : pick(expanded, file);
  const home = dirname(target ?? expanded[0] ?? resolve('portico.hcl'));
  const temp = await writeCandidate(home, text);
  try {
    const list = target ? expanded.map((f) => (f === target ? temp.path : f)) : [temp.path];
    const shown = target ?? CANDIDATE_NAME;
    const loaded = await loadGatewayConfig(list, env);
    const rename = (name: string): string => (name === temp.path ? shown : name);
    return {
      file: shown,
      config: loaded.config,
      diagnostics: toReloadDiagnostics(loaded.diagnostics, { texts: loaded.texts, rename }).map((view) => ({
        ...view,
        summary: view.summary.split(temp.path).join(shown),
        detail: view.detail.split(temp.path).join(shown),
        text: view.text.split(temp.path).join(shown),
      })),
      sources: loaded.sources.map((s) => ({ path: rename(s.path), sha256: s.sha256 })),
    };
  } finally {
    forgetParse(temp.path);
    await temp.remove();
  }
}

/** The active file `name` stands for: its path (absolute or from the working directory) or a unique file name. */
function pick(expanded: readonly string[], name: string): string {
  const wanted = resolve(name);
  const exact = expanded.find((f) => f === wanted);
  if (exact) return exact;
  const byName = expanded.filter((f) => basename(f) === name || f.endsWith(`/${name}`));
  if (byName.length === 1 && byName[0]) return byName[0];
  const list = expanded.map((f) => relative(process.cwd(), f) || f).join(', ');
  if (byName.length > 1) throw new CandidateFileError(`"${name}" matches several configuration files (${list}); give its full path`);
  throw new CandidateFileError(`"${name}" is not one of the active configuration files (${list}); leave file out to check the text alone`);
}

async function expand(files: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const path of files.map((f) => resolve(f))) {
    let directory = false;
    try {
      directory = (await stat(path)).isDirectory();
    } catch {
      // The load reports it.
    }
    if (!directory) out.push(path);
    else out.push(...(await readdir(path)).filter((n) => n.endsWith('.hcl')).sort().map((n) => join(path, n)));
  }
  return out;
}

/** Beside the real file when that directory is writable, else in a private temporary directory. */
async function writeCandidate(directory: string, text: string): Promise<{ path: string; remove(): Promise<void> }> {
  const name = `.portico-validate-${randomBytes(6).toString('hex')}.tmp`;
  const beside = join(directory, name);
  try {
    await writeFile(beside, text, { flag: 'wx', mode: 0o600 });
    return { path: beside, remove: () => rm(beside, { force: true }) };
  } catch {
    const own = await mkdtemp(join(tmpdir(), 'portico-validate-'));
    const path = join(own, name);
    await writeFile(path, text, { mode: 0o600 });
    return { path, remove: () => rm(own, { recursive: true, force: true }) };
  }
}
