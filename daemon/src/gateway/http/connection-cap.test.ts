import { describe, expect, it } from 'vitest';
import { openKept as open } from './testing/raw-socket.js';
import { startGateway } from './testing/test-gateway.js';

const CONFIG = { 'portico.hcl': 'server {\n  hosts = ["*:0"]\n  endpoint "/**" {\n    response { body = "ok" }\n  }\n}\n' };

describe('connection cap', () => {
  it('closes connections past the cap at once, keeps serving the open ones, and admits again when one ends', async () => {
    const gw = await startGateway(CONFIG, { limits: { maxConnections: 3 } });
    const port = Number(new URL(gw.url()).port);
    const kept = await Promise.all([open(port), open(port), open(port)]);
    // Each answered once, so the server holds all three.
    for (const c of kept) expect(await c.ask()).toBe('HTTP/1.1 200 OK');

    // The fourth is closed without an answer to its request (a server that ignored the cap would answer 200).
    const extra = await open(port);
    expect(await extra.ask()).toBeNull();
    await extra.closed;

    for (const c of kept) expect(await c.ask()).toBe('HTTP/1.1 200 OK');
    expect(gw.lines.some((l) => l.includes('connection limit reached'))).toBe(true);

    kept[0]!.socket.destroy();
    await kept[0]!.closed;
    // The server notices the close a moment after the client; a new connection is admitted then.
    await expect
      .poll(async () => {
        const next = await open(port);
        const answer = await next.ask();
        next.socket.destroy();
        return answer;
      })
      .toBe('HTTP/1.1 200 OK');
    for (const c of kept) c.socket.destroy();
  });
});
