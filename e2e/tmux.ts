import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A private tmux server (its own socket), so a test neither sees nor disturbs the user's sessions.
 * The socket is a file in the temporary folder, removed with the server: tmux leaves a killed
 * server's socket behind, and in its own folder (/tmp/tmux-<uid>) they piled up run after run.
 *
 * `kill-server` returns before the server has exited, and a client that connects to the
 * exiting server fails with "server exited unexpectedly" (about one time in seven here).
 * So after a kill the next server gets a socket of its own: no test waits for or races
 * the old one.
 */
export class TmuxServer {
  readonly #name: string;
  #generation = 0;

  constructor(name: string) {
    this.#name = name;
  }

  get #socket(): string {
    const name = `portico-e2e-${this.#name}-${process.pid}-${this.#generation}.tmux`;
    const path = join(tmpdir(), name);
    // A Unix socket's path has at most 107 bytes; under a long temporary folder, /tmp.
    return Buffer.byteLength(path) <= 100 ? path : join('/tmp', name);
  }

  run(...args: string[]): string {
    const r = spawnSync('tmux', ['-S', this.#socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (r.error) throw new Error(`tmux is not installed (${r.error.message}); .ci/run installs it with apt-get`);
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  }

  kill(): void {
    spawnSync('tmux', ['-S', this.#socket, 'kill-server']);
    rmSync(this.#socket, { force: true });
    this.#generation += 1;
  }
}

export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Whether a captured pane holds a whole frame of the console. Ink writes a frame top to
 * bottom in one write, but tmux may take that write in pieces, and a capture between two
 * pieces shows the top of the new frame over blank rows. Every frame ends with the key-hint
 * line (or, over the help, its close hint), so a pane whose last non-blank row is that line
 * has the frame whole.
 */
export function isWholeFrame(pane: string): boolean {
  const last = pane.trimEnd().split('\n').at(-1) ?? '';
  return /^ \? help {2}: command {2}q quit|Esc close help/.test(last);
}
