import { render } from 'ink';
import type { SystemStatus } from '@portico/daemon/control';
import type { ControlSource } from '../control/control-source.js';
import { LiveStore } from '../live/live-store.js';
import { App } from './app.js';

export interface InteractiveOptions {
  source: ControlSource;
  status: SystemStatus;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  color: boolean;
}

// The alternate screen keeps the operator's scrollback intact and gives every frame a clean slate.
const ENTER_ALT_SCREEN = '\u001B[?1049h';
const LEAVE_ALT_SCREEN = '\u001B[?1049l';

/** Runs the full-screen console until the operator quits; resolves with the exit code. */
export async function runInteractive({ source, status, stdin, stdout, stderr, color }: InteractiveOptions): Promise<number> {
  const store = new LiveStore(source, status);
  store.start();
  stdout.write(ENTER_ALT_SCREEN);
  const leave = (): void => {
    stdout.write(LEAVE_ALT_SCREEN);
  };
  process.once('exit', leave);
  try {
    const instance = render(<App store={store} source={source} color={color} />, {
      stdin,
      stdout,
      stderr,
      // Ctrl+C goes through the key registry like every other key (it is listed in the help).
      exitOnCtrlC: false,
      // Stray console output would tear the frame; only the process's own console can be patched.
      patchConsole: stdout === process.stdout,
    });
    await instance.waitUntilExit();
    return 0;
  } finally {
    store.stop();
    process.off('exit', leave);
    leave();
  }
}
