// Real files in temporary directories and a small real ReloadTarget for the reload tests.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEachTest } from '../../../testing/after-each-test.js';
import type { GatewayConfig } from '../../config/model.js';
import type { ReloadTarget } from '../../contracts.js';
import { ConfigManager, type ConfigManagerOptions, type ReloadLogger } from '../config-manager.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEachTest(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'portico-reload-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A configuration with one server whose endpoints answer `status` each. */
export function configText(paths: readonly string[], extra = ''): string {
  const endpoints = paths.map((p) => `  endpoint "${p}" {\n    response {\n      status = 204\n    }\n  }\n`).join('');
  return `server "main" {\n${endpoints}${extra}}\n`;
}

/** Saves like an editor that writes a temporary file and renames it over the original (vim, atomic writes). */
export function renameSave(path: string, text: string): void {
  const temp = `${path}.swp-${process.pid}`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

/** Records every applied configuration; `failWith` makes the next applies throw; `gate` holds applies until released. */
export class RecordingTarget implements ReloadTarget {
  applied: GatewayConfig[] = [];
  failWith: string | null = null;
  running = 0;
  maxRunning = 0;
  #gate: Promise<void> | null = null;
  #release: (() => void) | null = null;
  waiting = 0;

  async apply(config: GatewayConfig): Promise<void> {
    this.running += 1;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      if (this.#gate) {
        this.waiting += 1;
        await this.#gate;
        this.waiting -= 1;
      }
      if (this.failWith) throw new Error(this.failWith);
      this.applied.push(config);
    } finally {
      this.running -= 1;
    }
  }

  hold(): void {
    this.#gate = new Promise((resolve) => (this.#release = resolve));
  }

  release(): void {
    this.#gate = null;
    this.#release?.();
  }

  /** Endpoint paths of the last applied configuration. */
  paths(): string[] {
    return this.applied.at(-1)?.servers.flatMap((s) => s.endpoints.map((e) => e.path)) ?? [];
  }
}

export class MemoryLogger implements ReloadLogger {
  lines: Array<{ level: string; message: string }> = [];
  debug = (message: string): void => void this.lines.push({ level: 'debug', message });
  info = (message: string): void => void this.lines.push({ level: 'info', message });
  warn = (message: string): void => void this.lines.push({ level: 'warn', message });
  error = (message: string): void => void this.lines.push({ level: 'error', message });
}

/** A started manager over `files` (stopped after the test). */
export async function startManager(files: string[], options: Partial<ConfigManagerOptions> = {}): Promise<{ manager: ConfigManager; target: RecordingTarget; logger: MemoryLogger }> {
  const target = (options.target as RecordingTarget | undefined) ?? new RecordingTarget();
  const logger = (options.logger as MemoryLogger | undefined) ?? new MemoryLogger();
  const manager = new ConfigManager({ files, env: {}, target, logger, ...options });
  cleanups.push(() => manager.stop());
  await manager.start();
  return { manager, target, logger };
}

export { join, writeFileSync };
