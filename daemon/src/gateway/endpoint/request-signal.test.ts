// A request's AbortSignal is made only when something waits on it (a body read, a login
// provider, a key set): plain proxies, general routes and a jwt with a static key make none.
// Made per request for nothing, it cost an AbortController and kept the request's objects
// alive through young-generation collections (docs/gateway.md, "Performance").
import { afterEach, expect, it, vi } from 'vitest';
import { RequestLifetime } from '../http/request-lifetime.js';
import { startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';
import { backendAndJwt, tokToken } from './testing/guarded-backend.js';


afterEach(() => {
  vi.restoreAllMocks();
});

function config(origin: string): string {
  return `
server {
  hosts = ["*:0"]
  endpoint "/plain/**" {
    proxy {
      backend = "b"
    }
  }
  endpoint "/general/**" {
    set_response_headers = { x-route = "general" }
    proxy {
      backend = "b"
    }
  }
  endpoint "/jwt/**" {
    access_control = ["tok"]
    proxy {
      backend = "b"
    }
  }
  endpoint "/body" {
    response {
      json_body = { got = request.json_body }
    }
  }
}
definitions {
${backendAndJwt(origin)}
}
`;
}

it('makes no AbortSignal for a plain proxy, a general route or a jwt with a static key, and makes one to read a body', async () => {
  const backend = await startBackend();
  const gw = await startEndpointGateway(config(backend.origin));
  const made = vi.spyOn(RequestLifetime.prototype, 'signal', 'get');
  const token = await tokToken({ sub: 'ada' });

  const plain = await fetch(gw.url('/plain/a'));
  const general = await fetch(gw.url('/general/a'));
  const guarded = await fetch(gw.url('/jwt/a'), { headers: { authorization: `Bearer ${token}` } });
  const refused = await fetch(gw.url('/jwt/a'));
  expect([plain.status, general.status, general.headers.get('x-route'), guarded.status, refused.status]).toEqual([200, 200, 'general', 200, 401]);
  await Promise.all([plain, general, guarded, refused].map((r) => r.arrayBuffer()));
  expect(made).not.toHaveBeenCalled();

  // The control: a route that reads the client body waits on the request's signal.
  const body = await fetch(gw.url('/body'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  expect(await body.json()).toEqual({ got: { a: 1 } });
  expect(made).toHaveBeenCalled();
});
