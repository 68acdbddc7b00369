import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway, type SeenRequest } from './testing/endpoint-gateway.js';

/** A gateway listening on every address (dual-stack, as `*` hosts do) in front of an echoing backend. */
async function dualStackGateway() {
  const backend = await startBackend();
  return startEndpointGateway(
    `
server {
  hosts = ["*:0"]
  endpoint "/**" {
    proxy {
      backend = "b"
    }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`,
    { listenHost: '::' },
  );
}

describe('client address', () => {
  it('names an IPv4 client of a dual-stack listener by its IPv4 address, in X-Forwarded-For and the access record', async () => {
    const gw = await dualStackGateway();
    const res = await send(gw.url('/'), '/a', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(res.status).toBe(200);
    const seen = JSON.parse(res.text) as SeenRequest;
    expect(seen.headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
    expect(gw.records.find((r) => r.type === 'gateway_access')).toMatchObject({ client_ip: '127.0.0.1' });
  });

  it('keeps an IPv6 client as it is', async () => {
    const gw = await dualStackGateway();
    const port = new URL(gw.url('/')).port;
    const res = await fetch(`http://[::1]:${port}/a`);
    expect(res.status).toBe(200);
    const seen = (await res.json()) as SeenRequest;
    expect(seen.headers['x-forwarded-for']).toBe('::1');
    expect(gw.records.find((r) => r.type === 'gateway_access')).toMatchObject({ client_ip: '::1' });
  });
});
