import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { EndpointContext, GatewayResponse } from '../contracts.js';
import { send, startGateway } from './testing/test-gateway.js';

describe('shutdown timeout', () => {
  it('aborts requests still running after the timeout and destroys their sockets; stop() resolves', async () => {
    let arrived = 0;
    let aborted: unknown = null;
    const gw = await startGateway(
      { 'portico.hcl': 'server {\n  hosts = ["*:0"]\n  endpoint "/hang" {\n    response { body = "never" }\n  }\n}\n' },
      {
        shutdownTimeoutMs: 200,
        endpointHandler: {
          guard: async () => null,
          handle(ctx: EndpointContext): Promise<GatewayResponse> {
            arrived += 1;
            return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject((aborted = ctx.signal.reason))));
          },
        },
      },
    );
    const hanging = send(gw.url(), '/hang');
    await expect.poll(() => arrived).toBe(1);
    await gw.server.stop();
    await expect(hanging).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(aborted).toMatchObject({ kind: 'server_shutdown' });
    expect(gw.backendSets[0]!.closed).toBe(true);
  });

  it('closes a connection still sending its request head when the timeout passes; stop() resolves', async () => {
    // The header timeout far beyond the test's: only the shutdown timeout can end this connection.
    const gw = await startGateway({ 'portico.hcl': 'server {\n  hosts = ["*:0"]\n}\n' }, { shutdownTimeoutMs: 200, limits: { headerTimeoutMs: 600_000, bodyTimeoutMs: 600_000 } });
    const socket = connect(Number(new URL(gw.url()).port), '127.0.0.1');
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
    await gw.server.stop();
    await closed;
    expect(gw.server.draining).toBe(true);
  });
});
