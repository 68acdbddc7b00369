import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway, type SeenRequest } from './testing/endpoint-gateway.js';

const HCL = (origin: string): string => `
server {
  hosts = ["*:0"]
  endpoint "/form" {
    remove_form_params = ["password"]
    proxy {
      backend = "b"
      set_form_params = { role = "user" }
    }
  }
}
definitions {
  backend "b" {
    origin = "${origin}"
    add_form_params = { via = "gateway" }
  }
}
`;

describe('form params', () => {
  it('rewrite an urlencoded POST body in every context', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(HCL(backend.origin));
    const res = await send(gw.url('/'), '/form', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'user=a&password=p&role=admin' });
    const seen = JSON.parse(res.text) as SeenRequest;
    expect(seen.body).toBe('user=a&role=user&via=gateway');
    expect(seen.headers['content-length']).toBe(String(seen.body.length));
  });

  it('leave other bodies and methods alone', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(HCL(backend.origin));
    const json = JSON.parse((await send(gw.url('/'), '/form', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"password":"p"}' })).text) as SeenRequest;
    expect(json.body).toBe('{"password":"p"}');
    const put = JSON.parse((await send(gw.url('/'), '/form', { method: 'PUT', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'password=p' })).text) as SeenRequest;
    expect(put.body).toBe('password=p');
  });
});
