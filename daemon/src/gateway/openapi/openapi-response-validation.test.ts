import { describe, expect, it } from 'vitest';
import { accessLine, backendLines, petsBackend, startPetsGateway } from './testing/pets-api.js';

const json = { 'content-type': 'application/json' };

describe('openapi: responses from the backend', () => {
  it('fails an invalid response body with 502; the client sees only the synopsis', async () => {
    const backend = await petsBackend(() => ({ status: 200, headers: json, body: '{"name":7}' }));
    const gw = await startPetsGateway(backend);
    const res = await fetch(gw.url('/v1/pets/1'));
    expect(res.status).toBe(502);
    expect(res.headers.get('gateway-error')).toBe('backend error');
    expect(await res.text()).not.toContain('must be string');
    expect(backend.seen).toHaveLength(1);
    expect(accessLine(gw)).toMatchObject({ status: 502, error_type: 'backend_openapi_validation', message: 'backend "pets": response body /name must be string' });
    await expect.poll(() => backendLines(gw).length).toBe(1);
    expect(backendLines(gw)[0]).toMatchObject({ level: 'error', status: 200, error_type: 'backend_openapi_validation', validation: ['response body /name must be string'] });
  });

  it('checks the status (defined, its class, or default), the headers and the content type', async () => {
    let answer = { status: 418, headers: json as Record<string, string>, body: '{}' };
    const backend = await petsBackend(() => answer);
    const gw = await startPetsGateway(backend);
    const message = async (path: string, init?: RequestInit): Promise<unknown> => {
      const res = await fetch(gw.url(path), init);
      await res.arrayBuffer();
      return res.status === 502 ? accessLine(gw)?.['message'] : res.status;
    };
    expect(await message('/v1/pets/1')).toBe('backend "pets": response status 418 is not defined for GET /pets/{id}');
    // POST /pets has `default`: any status is defined.
    expect(await message('/v1/pets', { method: 'POST', headers: json, body: '{"name":"a"}' })).toBe(418);
    answer = { status: 200, headers: json, body: '[]' };
    expect(await message('/v1/pets')).toBe('backend "pets": response header X-Total is required');
    answer = { status: 200, headers: { ...json, 'x-total': 'lots' }, body: '[]' };
    expect(await message('/v1/pets')).toBe('backend "pets": response header X-Total must be integer');
    answer = { status: 200, headers: { 'content-type': 'text/html', 'x-total': '0' }, body: '<p>' };
    expect(await message('/v1/pets')).toBe('backend "pets": response Content-Type text/html is not defined (expected application/json)');
    answer = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'x-total': '2' }, body: '[{"name":"a"},{"name":"b"}]' };
    expect(await message('/v1/pets')).toBe(200);
  });

  it('passes a streamed response through whole after reading it to validate it', async () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({ name: `pet ${i}` }));
    const backend = await petsBackend(() => ({ status: 200, headers: { ...json, 'x-total': '5000' }, body: JSON.stringify(items) }));
    const gw = await startPetsGateway(backend);
    const res = await fetch(gw.url('/v1/pets'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(items);
  });

  it('with ignore_response_violations, passes the response and logs the violation', async () => {
    const backend = await petsBackend(() => ({ status: 200, headers: json, body: '{"name":7}' }));
    const gw = await startPetsGateway(backend, { openapi: 'ignore_response_violations = true' });
    const res = await fetch(gw.url('/v1/pets/1'));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"name":7}');
    await expect.poll(() => backendLines(gw).length).toBe(1);
    expect(backendLines(gw)[0]).toMatchObject({ level: 'info', status: 200, validation: ['response body /name must be string'] });
    expect(backendLines(gw)[0]).not.toHaveProperty('error_type');
  });

  it('ignoring request violations alone still fails the response of a request that matched no operation', async () => {
    const backend = await petsBackend(() => ({ status: 200, headers: json, body: '{}' }));
    const gw = await startPetsGateway(backend, { openapi: 'ignore_request_violations = true' });
    const res = await fetch(gw.url('/v1/owners'));
    expect(res.status).toBe(502);
    expect(backend.seen).toHaveLength(1);
    expect(accessLine(gw)?.['message']).toBe('backend "pets": response: the request matched no operation of the OpenAPI document, so the response cannot be validated');
  });

  it('error_handler "backend_openapi_validation" (and its super type "backend") catches both sides', async () => {
    const backend = await petsBackend(() => ({ status: 200, headers: json, body: '{"name":7}' }));
    const gw = await startPetsGateway(backend, {
      endpoint: `
    error_handler "backend_openapi_validation" {
      response {
        status = 422
        body = "the pets API refused that"
      }
    }`,
    });
    const invalidRequest = await fetch(gw.url('/v1/pets?limit=x'));
    expect([invalidRequest.status, await invalidRequest.text()]).toEqual([422, 'the pets API refused that']);
    const invalidResponse = await fetch(gw.url('/v1/pets/1'));
    expect([invalidResponse.status, await invalidResponse.text()]).toEqual([422, 'the pets API refused that']);
    expect(accessLine(gw)).toMatchObject({ handler: 'error_handler:backend_openapi_validation', error_type: 'backend_openapi_validation' });

    const bySuperType = await startPetsGateway(backend, { endpoint: '    error_handler "backend" {\n      response { status = 503 }\n    }' });
    expect((await fetch(bySuperType.url('/v1/pets?limit=x'))).status).toBe(503);
  });
});
