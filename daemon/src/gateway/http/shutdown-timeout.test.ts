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
});
