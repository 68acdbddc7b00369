import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, RESERVATIONS, reservePort } from './free-port.js';

describe('free ports for tests', () => {
  it('reserves each port it hands out for every test process, until the reservation lapses', async () => {
    const port = await freePort();
    expect(existsSync(join(RESERVATIONS, String(port)))).toBe(true);
    // Another process asking now (a daemon of this test is down for a restart) is refused.
    expect(reservePort(port)).toBe(false);
    expect(reservePort(port, Date.now() + 9 * 60_000)).toBe(false);
    // A reservation older than ten minutes is a finished test file's: it can be taken again.
    expect(reservePort(port, Date.now() + 10 * 60_000 + 1_000)).toBe(true);
  });
});
