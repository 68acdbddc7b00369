/**
 * Test support for OpenAPI validation: a small pets API document (YAML) and a gateway with
 * one endpoint proxying to a backend that validates against it.
 */
import type { ServerResponse } from 'node:http';
import { startAccessGateway, type AccessGateway } from '../../access/testing/access-gateway.js';
import type { GatewayLogRecord } from '../../contracts.js';
import { startBackend, type SeenRequest, type TestBackend } from '../../endpoint/testing/endpoint-gateway.js';

export const PETS_YAML = `openapi: 3.0.3
info:
  title: pets
  version: "1"
servers:
  - url: /v1
paths:
  /pets:
    get:
      parameters:
        - name: limit
          in: query
          schema: { type: integer, maximum: 100 }
      responses:
        "200":
          description: the pets
          headers:
            X-Total:
              required: true
              schema: { type: integer }
          content:
            application/json:
              schema:
                type: array
                items: { $ref: "#/components/schemas/Pet" }
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: "#/components/schemas/Pet" }
      responses:
        "201": { description: created }
        default: { description: an error }
  /pets/{id}:
    get:
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer } }
      responses:
        "200":
          description: one pet
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Pet" }
components:
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: { type: string }
        age: { type: integer, minimum: 0 }
`;

/** Answers what `reply` says for each request (a pets backend that may misbehave). */
export type Reply = (req: SeenRequest) => { status: number; headers?: Record<string, string>; body?: string };

export function petsBackend(reply?: Reply): Promise<TestBackend> {
  return startBackend((req, res: ServerResponse) => {
    const answer = reply?.(req) ?? defaultReply(req);
    res.writeHead(answer.status, answer.headers ?? {});
    res.end(answer.body ?? '');
  });
}

function defaultReply(req: SeenRequest): ReturnType<Reply> {
  if (req.method === 'POST') return { status: 201 };
  if (req.url.startsWith('/v1/pets/')) return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"name":"Rex","age":3}' };
  return { status: 200, headers: { 'content-type': 'application/json', 'x-total': '1' }, body: '[{"name":"Rex"}]' };
}

/** A gateway whose `/v1/**` proxies (or runs `block`) to `backend` with `openapi { file = "pets.yaml" <openapi> }`. */
export function startPetsGateway(backend: TestBackend, options: { openapi?: string; endpoint?: string; block?: string; document?: string; file?: string } = {}): Promise<AccessGateway> {
  const file = options.file ?? 'pets.yaml';
  return startAccessGateway({
    'portico.hcl': `
server {
  hosts = ["*:0"]
  endpoint "/v1/**" {
    ${options.block ?? 'proxy { backend = "pets" }'}
${options.endpoint ?? ''}
  }
}
definitions {
  backend "pets" {
    origin = "${backend.origin}"
    openapi {
      file = "${file}"
${options.openapi ?? ''}
    }
  }
}
`,
    [file]: options.document ?? PETS_YAML,
  });
}

export function backendLines(gw: AccessGateway): GatewayLogRecord[] {
  return gw.records.filter((r) => r.type === 'gateway_backend');
}

export function accessLine(gw: AccessGateway): GatewayLogRecord | undefined {
  return gw.records.filter((r) => r.type === 'gateway_access').at(-1);
}
