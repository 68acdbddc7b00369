// CGI-style backends (WSGI, Rack, PHP) read `X_User` and `X-User` as one header (HTTP_X_USER):
// a client's underscore spelling must not stand in for a header the gateway sets or removes.
import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';
import { plainAndGeneralServer } from './testing/guarded-backend.js';

describe('header spellings a CGI-style backend reads as one', () => {
  it("drops a client's underscore spelling of a header a modifier set, removed or added, and of X-Forwarded-For; keeps the rest", async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(
      plainAndGeneralServer(
        `set_request_headers    = { x-user = "alice" }
    remove_request_headers = ["x-internal"]`,
        '',
        `add_request_headers = { x_role = "reader" }`,
      ) + `\ndefinitions {\n  backend "b" { origin = "${backend.origin}" }\n}\n`,
    );
    const sent = { 'x_user': 'admin', 'x-internal': 'a', 'x_internal': 'b', 'x-role': 'admin', 'x_forwarded_for': '6.6.6.6', 'x_real_ip': '6.6.6.6', 'x_trace': 't1', 'x-user-agent-hint': 'h' };
    for (const prefix of ['/plain', '/general']) expect((await send(gw.url('/'), `${prefix}/x`, { headers: sent })).status).toBe(200);
    expect(backend.seen).toHaveLength(2);
    for (const seen of backend.seen) {
      const h = seen.headers;
      expect(h['x-user']).toBe('alice');
      expect(h['x_role']).toBe('reader');
      expect(h['x-forwarded-for']).toBe('127.0.0.1');
      expect(h['x_trace']).toBe('t1');
      expect(h['x-user-agent-hint']).toBe('h');
      for (const gone of ['x_user', 'x-internal', 'x_internal', 'x-role', 'x_forwarded_for', 'x_real_ip']) expect(h[gone], `${seen.url} ${gone}`).toBeUndefined();
    }
  });
});
