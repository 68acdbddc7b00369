// A fake terminal for Ink: a sized TTY stdout that records frames, and a stdin we type into.
import { EventEmitter } from 'node:events';
import type { ReactElement } from 'react';
import { render, type Instance } from 'ink';

export class FakeStdout extends EventEmitter {
  readonly isTTY = true;
  frames: string[] = [];
  constructor(
    public columns = 80,
    public rows = 24,
  ) {
    super();
  }
  write = (frame: string): boolean => {
    this.frames.push(frame);
    return true;
  };
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.emit('resize');
  }
}

export class FakeStdin extends EventEmitter {
  isTTY = true;
  #queue: string[] = [];
  write = (data: string): void => {
    this.#queue.push(data);
    this.emit('readable');
  };
  read = (): string | null => this.#queue.shift() ?? null;
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

export interface TestTerminal {
  stdout: FakeStdout;
  stdin: FakeStdin;
  instance: Instance;
  /** The current screen without styling, one string per line. */
  screen(): string[];
  text(): string;
  /** The current screen with its escape codes. */
  raw(): string;
  /** Types keys and waits a moment for Ink to render. */
  press(...keys: string[]): Promise<void>;
}

export const KEYS = { escape: '\u001B', enter: '\r', up: '\u001B[A', down: '\u001B[B', tab: '\t', backspace: '\u007F', end: '\u001B[F' } as const;

export function renderInTerminal(tree: ReactElement, { columns = 80, rows = 24 } = {}): TestTerminal {
  const stdout = new FakeStdout(columns, rows);
  const stdin = new FakeStdin();
  const instance = render(tree, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: stdout as unknown as NodeJS.WriteStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const raw = (): string => stdout.frames.at(-1) ?? '';
  const text = (): string => raw().replace(/\u001B\[[0-9;?]*[A-Za-z]/g, '');
  return {
    stdout,
    stdin,
    instance,
    text,
    raw,
    screen: () => text().split('\n'),
    /** Types each key, then waits for the screen to settle: a redraw, then 20 ms without another (at most 2 s for keys that change nothing). */
    async press(...keys) {
      for (const key of keys) {
        const before = stdout.frames.length;
        stdin.write(key);
        const deadline = Date.now() + 2_000;
        let seen = before;
        let quietSince = Date.now();
        while (Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 5));
          if (stdout.frames.length !== seen) {
            seen = stdout.frames.length;
            quietSince = Date.now();
          } else if (seen > before && Date.now() - quietSince >= 20) break;
        }
      }
    },
  };
}

/** Waits until the screen shows `text` (3 s at most), else fails with the screen it shows. */
export async function screenShows(t: TestTerminal, text: string | RegExp): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!(typeof text === 'string' ? t.text().includes(text) : text.test(t.text()))) {
    if (Date.now() > deadline) throw new Error(`screen never showed ${String(text)}:\n${t.text()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
