/**
 * Free ports for tests that start servers (the gateway, daemons, receivers): shared by the unit
 * tests and the whole-system tests.
 */
import { closeSync, mkdirSync, openSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Ports this process handed out: a port whose probe just closed may be the kernel's next pick too. */
const handedOut = new Set<number>();

/**
 * Ports handed out by every test process on this machine, one empty file each. The tests run in
 * several processes at once, and a test that stops a daemon and starts it again on the same
 * ports (a restart, a crash) leaves them free meanwhile: another process's pick must not take
 * one then. A reservation is a test file's, so it lapses after RESERVATION_MS. `npm test` gives
 * each vitest run a temporary folder of its own and names this one in PORTICO_TEST_PORTS_DIR, so
 * that runs started side by side still share it.
 */
export const RESERVATIONS = process.env.PORTICO_TEST_PORTS_DIR || join(tmpdir(), 'portico-test-ports');
const RESERVATION_MS = 10 * 60_000;

/**
 * Takes `port` for this process unless another test process took it less than RESERVATION_MS
 * ago. Where the folder cannot be written, every port counts as free (this process's own set
 * still applies).
 */
export function reservePort(port: number, now = Date.now()): boolean {
  const file = join(RESERVATIONS, String(port));
  try {
    mkdirSync(RESERVATIONS, { recursive: true });
    closeSync(openSync(file, 'wx'));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return true;
  }
  try {
    if (now - statSync(file).mtimeMs < RESERVATION_MS) return false;
    utimesSync(file, new Date(now), new Date(now));
    return true;
  } catch {
    return true;
  }
}

/** The first port of the kernel's range for outgoing connections (32768 when it cannot be read). */
function ephemeralStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 0 ? start : 32768;
  } catch {
    return 32768;
  }
}
const EPHEMERAL_START = ephemeralStart();
const PICK_FROM = 10_000;

/**
 * A port nothing listens on right now, for a daemon to listen on a moment later. Picked below
 * the kernel's range for outgoing connections, so no test's client connection can take it in
 * between (a port from `listen(0)` comes from that range), never the same twice in one test
 * process, and none another test process took in the last ten minutes (`reservePort`). Probed on
 * every address, as the gateway listens.
 */
export async function freePort(): Promise<number> {
  if (EPHEMERAL_START - PICK_FROM >= 1000) {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const port = PICK_FROM + Math.floor(Math.random() * (EPHEMERAL_START - PICK_FROM));
      if (handedOut.has(port) || !(await canListen(port)) || !reservePort(port)) continue;
      handedOut.add(port);
      return port;
    }
  }
  for (;;) {
    const port = await kernelPort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, () => server.close(() => resolve(true)));
  });
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
