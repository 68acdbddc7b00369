/**
 * Free ports for tests that start servers (the gateway, daemons, receivers): shared by the unit
 * tests and the whole-system tests.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports this process handed out: a port whose probe just closed may be the kernel's next pick too. */
const handedOut = new Set<number>();

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
 * between (a port from `listen(0)` comes from that range), and never the same twice in one
 * test process. Probed on every address, as the gateway listens.
 */
export async function freePort(): Promise<number> {
  if (EPHEMERAL_START - PICK_FROM >= 1000) {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const port = PICK_FROM + Math.floor(Math.random() * (EPHEMERAL_START - PICK_FROM));
      if (handedOut.has(port) || !(await canListen(port))) continue;
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
