import { describe, expect, it } from 'vitest';
import type { EndpointContext, EndpointHandler, GatewayResponse } from '../contracts.js';
import { echoEndpointHandler, freePort, send, startGateway } from './testing/test-gateway.js';

/** Holds requests to `/slow` until released; answers with the config version the request ran on (from its endpoint's response body). */
function gatedHandler(): { handler: EndpointHandler; arrived: () => number; release: () => void } {
  let arrived = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    arrived: () => arrived,
    release: () => release(),
    handler: {
      guard: (ctx) => echoEndpointHandler.guard(ctx),
    async handle(ctx: EndpointContext): Promise<GatewayResponse> {
        if (ctx.endpoint.pattern === '/slow') {
          arrived += 1;
          await gate;
        }
        return echoEndpointHandler.handle(ctx);
      },
    },
  };
}

const config = (version: string, ports: number[]) => `
server {
  hosts = [${ports.map((p) => `"*:${p}"`).join(', ')}]
  endpoint "/slow" {
    response { body = "${version}" }
  }
  endpoint "/version" {
    response { body = "${version}" }
  }
}
`;

describe('apply() swaps the runtime', () => {
  it('lets a slow request finish on the old runtime, serves new ones on the new, and closes the old backends after it', async () => {
    const port = await freePort();
    const gated = gatedHandler();
    const gw = await startGateway({ 'portico.hcl': config('old', [port]) }, { endpointHandler: gated.handler });
    const slow = send(gw.url(), '/slow');
    await expect.poll(gated.arrived).toBe(1);
    await gw.server.apply(await gw.loadConfig({ 'portico.hcl': config('new', [port]) }));
    expect((await send(gw.url(), '/version')).text).toBe('new');
    expect(gw.backendSets[0]!.closed).toBe(false);
    gated.release();
    expect((await slow).text).toBe('old');
    await expect.poll(() => gw.backendSets[0]!.closed).toBe(true);
    expect(gw.backendSets[1]!.closed).toBe(false);
  });

  it('opens listeners for new ports and closes those no longer configured', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const gw = await startGateway({ 'portico.hcl': config('one', [a]) });
    const onA = gw.url('/', a);
    await gw.server.apply(await gw.loadConfig({ 'portico.hcl': config('two', [b]) }));
    expect((await send(gw.url('/', b), '/version')).text).toBe('two');
    await expect.poll(() => send(onA, '/version').then(() => 'open', (e: Error) => e.message)).toMatch(/ECONNREFUSED/);
    expect(gw.server.addresses()).toEqual([`127.0.0.1:${b}`]);
  });
});
