import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEachTest } from '../../../testing/after-each-test.js';
import { formatDiagnostic } from '../../../hcl/index.js';
import { loadGatewayConfig, type LoadResult } from '../load.js';
import type { GatewayConfig } from '../model.js';

const dirs: string[] = [];
afterEachTest(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary directory holding `files` (name -> content; names may contain `/`). */
export function tempFiles(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'portico-gateway-config-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

export interface Loaded extends LoadResult {
  readonly dir: string;
  /** Diagnostics formatted, with the temporary directory left out of file names. */
  readonly messages: string[];
}

/**
 * Writes `files` to a temporary directory and loads the `.hcl` ones in the order given
 * (or `order`), with `env` as the process environment.
 */
export async function load(files: Record<string, string | Buffer>, env: Record<string, string> = {}, order?: string[]): Promise<Loaded> {
  const dir = tempFiles(files);
  const names = order ?? Object.keys(files).filter((n) => n.endsWith('.hcl'));
  const result = await loadGatewayConfig(names.map((n) => join(dir, n)), env);
  return { ...result, dir, messages: result.diagnostics.map((d) => formatDiagnostic(d).split(`${dir}/`).join('')) };
}

/** Loads a configuration that must be valid, and returns it. */
export async function loadOk(files: Record<string, string | Buffer>, env: Record<string, string> = {}): Promise<GatewayConfig> {
  const loaded = await load(files, env);
  if (!loaded.config) throw new Error(`expected a valid configuration, got:\n${loaded.messages.join('\n')}`);
  return loaded.config;
}

/** The messages of loading one file `portico.hcl`. */
export async function problems(source: string, extra: Record<string, string> = {}, env: Record<string, string> = {}): Promise<string[]> {
  const loaded = await load({ 'portico.hcl': source, ...extra }, env, ['portico.hcl']);
  return loaded.messages;
}
