// OpenAPI validation in the real daemon: a backend behind `openapi { file = ... }`, a valid
// and an invalid request through the gateway, then the OpenAPI file edited on disk: the
// daemon reloads by itself and the new rule applies.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type DaemonHandle } from './harness.js';

const document = (maxLimit: number): string => `openapi: 3.0.3
info: { title: pets, version: "1" }
paths:
  /pets:
    get:
      parameters:
        - { name: limit, in: query, schema: { type: integer, maximum: ${maxLimit} } }
      responses:
        "200":
          description: the pets
          content:
            application/json:
              schema: { type: array, items: { type: object, required: [name] } }
`;

describe('gateway OpenAPI validation (daemon)', () => {
  let dir: string;
  let backend: Server;
  let seen: string[];
  let daemon: DaemonHandle;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portico-e2e-openapi-'));
    seen = [];
    backend = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[{"name":"Rex"}]');
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
    writeFileSync(join(dir, 'pets.yaml'), document(100));
    writeFileSync(
      join(dir, 'portico.hcl'),
      `server "pets" {\n  hosts = ["127.0.0.1:\${env.PORTICO_GATEWAY_PORT}"]\n  endpoint "/pets" {\n    proxy { backend = "pets" }\n  }\n}\ndefinitions {\n  backend "pets" {\n    origin = "${origin}"\n    openapi { file = "pets.yaml" }\n  }\n}\n`,
    );
    daemon = await startDaemon({ args: ['-f', join(dir, 'portico.hcl')] });
  });
  afterAll(async () => {
    await daemon?.dispose();
    await new Promise((resolve) => backend?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a valid request, refuses an invalid one, and applies an edited OpenAPI file after the daemon reloads it', async () => {
    const get = async (path: string): Promise<{ status: number; text: string }> => {
      const res = await fetch(`${daemon.gatewayUrl}${path}`);
      return { status: res.status, text: await res.text() };
    };
    expect(await get('/pets?limit=50')).toEqual({ status: 200, text: '[{"name":"Rex"}]' });
    const refused = await get('/pets?limit=fifty');
    expect(refused.status).toBe(400);
    expect(refused.text).not.toContain('must be integer');
    expect(seen).toEqual(['/pets?limit=50']);
    await expect.poll(() => daemon.logs()).toContain('request query parameter \\"limit\\" must be integer');

    writeFileSync(join(dir, 'pets.yaml'), document(10));
    await expect.poll(async () => (await get('/pets?limit=50')).status, { timeout: 10_000 }).toBe(400);
    expect(await get('/pets?limit=5')).toEqual({ status: 200, text: '[{"name":"Rex"}]' });
    // Requests sent before the reload reached the backend; the refused ones never did.
    expect(seen.at(-1)).toBe('/pets?limit=5');
    expect(seen).not.toContain('/pets?limit=fifty');
  });
});
