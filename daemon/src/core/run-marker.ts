import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A run that left its marker behind: it was killed or crashed before it could stop. */
export interface UncleanRun {
  readonly pid: number;
  readonly mode: string;
  readonly startedAt: string;
}

interface Marker {
  readonly pid: number;
  readonly mode: string;
  readonly startedAt: string;
}

/**
 * One file per running daemon process in `<data dir>/run/` (several processes may share a
 * data dir in split modes), removed when the process stops cleanly. A file whose process is
 * gone tells the next start that a run ended without stopping.
 */
export class RunMarker {
  readonly #file: string;

  private constructor(file: string) {
    this.#file = file;
  }

  /** Writes this process's marker and returns the runs that ended unclean (their markers are removed). */
  static claim(dataDir: string, mode: string, startedAt: Date): { marker: RunMarker; unclean: UncleanRun[] } {
    const dir = join(dataDir, 'run');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const unclean: UncleanRun[] = [];
    for (const name of readdirSync(dir)) {
      if (!/^\d+\.json$/.test(name)) continue;
      const path = join(dir, name);
      const marker = readMarker(path);
      if (marker !== null && marker.pid !== process.pid && isAlive(marker.pid)) continue;
      if (marker !== null && marker.pid !== process.pid) unclean.push(marker);
      rmSync(path, { force: true });
    }
    const file = join(dir, `${process.pid}.json`);
    const own: Marker = { pid: process.pid, mode, startedAt: startedAt.toISOString() };
    writeFileSync(file, `${JSON.stringify(own)}\n`, { mode: 0o600 });
    return { marker: new RunMarker(file), unclean };
  }

  /** The process stops cleanly: the next start finds nothing to report. */
  release(): void {
    rmSync(this.#file, { force: true });
  }
}

function readMarker(path: string): Marker | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<Marker>;
    if (typeof value.pid !== 'number' || typeof value.mode !== 'string' || typeof value.startedAt !== 'string') return null;
    return { pid: value.pid, mode: value.mode, startedAt: value.startedAt };
  } catch {
    return null;
  }
}

/** Whether a process of this machine is running (also used to sweep what a dead process left). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
