import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { WatchSet } from './file-watcher.js';

export interface ConfigSources {
  /** Every configuration file, in load order: -f files as given, then each -d dir's *.hcl by name. */
  files: string[];
  /**
   * The same sources as given: -f files, then -d directories (absolute). A reload reads a
   * directory again, so a *.hcl file added to it later is picked up.
   */
  paths: string[];
}

export const DEFAULT_CONFIG_FILE = 'config/portico.hcl';

/**
 * The configuration files the daemon loads. With no -f/-d, PORTICO_CONFIG, else
 * config/portico.hcl when it exists. Every file must be readable.
 */
export function resolveConfigSources(files: readonly string[], dirs: readonly string[], envConfig: string | undefined): ConfigSources {
  const chosen: string[] = [...files];
  let dirFiles = 0;
  for (const dir of dirs) {
    let names: string[];
    try {
      if (!statSync(dir).isDirectory()) throw new Error('not a directory');
      names = readdirSync(dir).filter((n) => n.endsWith('.hcl')).sort();
    } catch (error) {
      throw new Error(`configuration directory ${dir}: ${reason(error)}`);
    }
    if (names.length === 0) throw new Error(`configuration directory ${dir} holds no *.hcl file`);
    chosen.push(...names.map((n) => join(dir, n)));
    dirFiles += names.length;
  }
  if (chosen.length === 0) {
    if (envConfig) chosen.push(envConfig);
    else if (exists(DEFAULT_CONFIG_FILE)) chosen.push(DEFAULT_CONFIG_FILE);
  }
  for (const file of chosen) {
    try {
      accessSync(file, constants.R_OK);
      if (!statSync(file).isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
    } catch (error) {
      throw new Error(`configuration file ${file}: ${reason(error)}`);
    }
  }
  const explicitFiles = chosen.slice(0, chosen.length - dirFiles);
  return { files: chosen.map((f) => resolve(f)), paths: [...explicitFiles, ...dirs].map((p) => resolve(p)) };
}

/**
 * What a process that loads `paths` (configuration files, and directories standing for their
 * `*.hcl` files) watches to see every save: the files, `*.hcl` in the directories (so a file
 * added to a -d directory later counts), and `referenced` files (error files, keys...).
 */
export async function configWatchSet(paths: readonly string[], referenced: readonly string[] = []): Promise<WatchSet> {
  const files: string[] = [];
  const directories: Array<{ path: string; suffix: string }> = [];
  for (const path of paths) {
    if (await isDirectory(path)) directories.push({ path, suffix: '.hcl' });
    else files.push(path);
  }
  return { files: [...files, ...referenced], directories };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function exists(file: string): boolean {
  try {
    accessSync(file);
    return true;
  } catch {
    return false;
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'not found';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'not a regular file';
  return error instanceof Error ? error.message : String(error);
}
