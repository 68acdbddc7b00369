import { spawnSync } from 'node:child_process';

/** A private tmux server (its own socket), so a test neither sees nor disturbs the user's sessions. */
export class TmuxServer {
  readonly #socket: string;

  constructor(name: string) {
    this.#socket = `portico-e2e-${name}-${process.pid}`;
  }

  run(...args: string[]): string {
    const r = spawnSync('tmux', ['-L', this.#socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (r.error) throw new Error(`tmux is not installed (${r.error.message}); .ci/run installs it with apt-get`);
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.#socket, 'kill-server']);
  }
}

export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
