import { afterEach, describe, expect, it } from 'vitest';
import { createBackendSet } from '../backend/index.js';
import { createEndpointHandler } from '../endpoint/endpoint-handler.js';
import { fixedHealth } from '../endpoint/testing/endpoint-gateway.js';
import { GatewayServer } from '../http/gateway-server.js';
import { join, startManager, tempDir, writeFileSync } from '../reload/testing/config-files.js';
import { PETS_YAML, petsBackend } from './testing/pets-api.js';

const servers: GatewayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

function gatewayServer(): GatewayServer {
  const quiet = (): void => undefined;
  const server = new GatewayServer({
    endpointHandler: createEndpointHandler({ logger: { warn: quiet } }),
    createBackends: (cfg) => createBackendSet(cfg, { health: fixedHealth(), env: {} }),
    logger: { info: quiet, warn: quiet, error: quiet },
    shutdownDelayMs: 0,
    shutdownTimeoutMs: 1000,
    listenHost: '127.0.0.1',
  });
  servers.push(server);
  return server;
}

describe('openapi: reload', () => {
  it('a saved OpenAPI file reloads the configuration and its new rules apply; a broken save keeps the old ones', async () => {
    const backend = await petsBackend();
    const dir = tempDir();
    const file = join(dir, 'portico.hcl');
    writeFileSync(join(dir, 'pets.yaml'), PETS_YAML);
    writeFileSync(file, `server {\n  hosts = ["*:0"]\n  endpoint "/v1/**" {\n    proxy { backend = "pets" }\n  }\n}\ndefinitions {\n  backend "pets" {\n    origin = "${backend.origin}"\n    openapi { file = "pets.yaml" }\n  }\n}\n`);
    const server = gatewayServer();
    const { manager } = await startManager([file], { target: server });
    expect(manager.status().watching).toContain(join(dir, 'pets.yaml'));
    const status = async (path: string): Promise<number> => (await fetch(`http://127.0.0.1:${server.boundPort(0) ?? 0}${path}`)).status;
    expect(await status('/v1/pets?limit=50')).toBe(200);

    writeFileSync(join(dir, 'pets.yaml'), PETS_YAML.replace('maximum: 100', 'maximum: 20'));
    await expect.poll(() => manager.history().length).toBe(2);
    expect(manager.history()[0]).toMatchObject({ trigger: 'file', result: 'applied', diff: { summary: '~1 backend (pets)' } });
    expect(await status('/v1/pets?limit=50')).toBe(400);
    expect(await status('/v1/pets?limit=20')).toBe(200);

    writeFileSync(join(dir, 'pets.yaml'), 'openapi: 3.0.3\npaths: [\n');
    await expect.poll(() => manager.history().length).toBe(3);
    expect(manager.history()[0]).toMatchObject({ trigger: 'file', result: 'rejected' });
    expect(manager.history()[0]!.diagnostics.map((d) => d.text).join('\n')).toContain('Invalid OpenAPI file; pets.yaml:');
    expect(await status('/v1/pets?limit=50')).toBe(400);
    expect(await status('/v1/pets?limit=20')).toBe(200);
  });
});
