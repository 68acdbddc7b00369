import { describe, expect, it } from 'vitest';
import { accessLine, backendLines, petsBackend, startPetsGateway } from './testing/pets-api.js';

describe('openapi: requests to the backend', () => {
  it('sends a request the document allows, under the server base path', async () => {
    const backend = await petsBackend();
    const gw = await startPetsGateway(backend);
    const res = await fetch(gw.url('/v1/pets?limit=10'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ name: 'Rex' }]);
    expect(backend.seen.map((r) => r.url)).toEqual(['/v1/pets?limit=10']);
    await expect.poll(() => backendLines(gw).length).toBe(1);
    expect(backendLines(gw)[0]).toMatchObject({ level: 'info', status: 200 });
    expect(backendLines(gw)[0]).not.toHaveProperty('validation');
  });

  it('refuses a path or a method the document lacks with 400, and never contacts the backend', async () => {
    const backend = await petsBackend();
    const gw = await startPetsGateway(backend);
    const unknownPath = await fetch(gw.url('/v1/owners'));
    expect(unknownPath.status).toBe(400);
    expect(unknownPath.headers.get('gateway-error')).toBe('backend error');
    const unknownMethod = await fetch(gw.url('/v1/pets/7'), { method: 'DELETE' });
    expect(unknownMethod.status).toBe(400);
    expect(backend.seen).toEqual([]);
    const [pathLine, methodLine] = backendLines(gw);
    expect(pathLine).toMatchObject({ level: 'error', error_type: 'backend_openapi_validation', status: null, validation: ['request: no path of the OpenAPI document matches /v1/owners (server base paths: /v1)'] });
    expect(methodLine).toMatchObject({ error_type: 'backend_openapi_validation', validation: ['request: method DELETE is not defined for path /v1/pets/7'] });
  });

  it('refuses a bad query parameter or path parameter; the detail is logged, the client sees the synopsis', async () => {
    const backend = await petsBackend();
    const gw = await startPetsGateway(backend);
    const res = await fetch(gw.url('/v1/pets?limit=many'));
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain('backend error');
    expect(text).not.toContain('must be integer');
    expect(accessLine(gw)).toMatchObject({ status: 400, error_type: 'backend_openapi_validation', message: 'backend "pets": request query parameter "limit" must be integer' });
    expect((await fetch(gw.url('/v1/pets?limit=101'))).status).toBe(400);
    expect(accessLine(gw)?.['message']).toBe('backend "pets": request query parameter "limit" must be <= 100');
    expect((await fetch(gw.url('/v1/pets/rex'))).status).toBe(400);
    expect(accessLine(gw)?.['message']).toBe('backend "pets": request path parameter "id" must be integer');
    // A query parameter the document does not list is not a violation.
    expect((await fetch(gw.url('/v1/pets?page=2'))).status).toBe(200);
    expect(backend.seen.map((r) => r.url)).toEqual(['/v1/pets?page=2']);
  });

  it('validates the request body by its content type', async () => {
    const backend = await petsBackend();
    const gw = await startPetsGateway(backend);
    const post = (body: string, type = 'application/json'): Promise<Response> => fetch(gw.url('/v1/pets'), { method: 'POST', headers: { 'content-type': type }, body });
    expect((await post('{"name":"Rex","age":2}')).status).toBe(201);
    expect(backend.seen.map((r) => r.body)).toEqual(['{"name":"Rex","age":2}']);

    expect((await post('{"age":-1}')).status).toBe(400);
    expect(backendLines(gw).at(-1)?.['validation']).toEqual(["request body must have required property 'name'", 'request body /age must be >= 0']);
    expect((await post('{"name":')).status).toBe(400);
    expect(accessLine(gw)?.['message']).toMatch(/^backend "pets": request body is not valid JSON: /);
    expect((await post('name=Rex', 'text/plain')).status).toBe(400);
    expect(accessLine(gw)?.['message']).toBe('backend "pets": request Content-Type text/plain is not defined (expected application/json)');
    expect((await fetch(gw.url('/v1/pets'), { method: 'POST' })).status).toBe(400);
    expect(accessLine(gw)?.['message']).toBe('backend "pets": request body is required');
    expect(backend.seen).toHaveLength(1);
  });

  it('with ignore_request_violations, sends the request and logs the violation in the backend line', async () => {
    const backend = await petsBackend((req) => (req.method === 'POST' ? { status: 201 } : { status: 200, headers: { 'content-type': 'application/json', 'x-total': '0' }, body: '[]' }));
    const gw = await startPetsGateway(backend, { openapi: 'ignore_request_violations = true' });
    const res = await fetch(gw.url('/v1/pets?limit=many'));
    expect(res.status).toBe(200);
    expect(backend.seen.map((r) => r.url)).toEqual(['/v1/pets?limit=many']);
    await expect.poll(() => backendLines(gw).length).toBe(1);
    expect(backendLines(gw)[0]).toMatchObject({ level: 'info', status: 200, validation: ['request query parameter "limit" must be integer'] });
    expect(backendLines(gw)[0]).not.toHaveProperty('error_type');

    // The body still reaches the backend whole after it was read to validate it.
    const posted = await fetch(gw.url('/v1/pets'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"age":"old"}' });
    expect(posted.status).toBe(201);
    expect(backend.seen[1]).toMatchObject({ method: 'POST', body: '{"age":"old"}' });
  });

  it('validates request blocks too', async () => {
    const backend = await petsBackend();
    const block = (body: string): string => `request {\n      backend = "pets"\n      url = "/v1/pets"\n      method = "POST"\n      json_body = ${body}\n    }`;
    const valid = await startPetsGateway(backend, { block: block('{ name = "Rex" }') });
    expect((await fetch(valid.url('/v1/x'))).status).toBe(201);
    const invalid = await startPetsGateway(backend, { block: block('{ age = 1 }') });
    expect((await fetch(invalid.url('/v1/x'))).status).toBe(400);
    expect(accessLine(invalid)?.['message']).toBe("backend \"pets\": request body must have required property 'name'");
    expect(backend.seen.map((r) => r.body)).toEqual(['{"name":"Rex"}']);
  });

  it('reads a JSON document (OpenAPI 3.1) as well as YAML', async () => {
    const backend = await petsBackend();
    const document = JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'pets', version: '1' },
      paths: { '/v1/pets': { post: { requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'] } } } }, responses: { '201': { description: 'created' } } } } },
    });
    const gw = await startPetsGateway(backend, { file: 'pets.json', document });
    const post = (body: string): Promise<Response> => fetch(gw.url('/v1/pets'), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await post('{"name":"Rex"}')).status).toBe(201);
    expect((await post('{}')).status).toBe(400);
    expect(backend.seen).toHaveLength(1);
  });
});
