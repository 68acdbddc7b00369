import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway, type SeenRequest } from './testing/endpoint-gateway.js';

describe('modifiers', () => {
  it('request headers and query params: remove, set, add per context, in the order endpoint, proxy, backend', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/m" {
    remove_request_headers = ["x-drop"]
    set_request_headers = { x-who = "endpoint", x-list = ["1", "2"] }
    add_request_headers = { x-trail = "endpoint" }
    remove_query_params = ["secret"]
    set_query_params = { page = "1" }
    proxy {
      backend = "b"
      set_request_headers = { x-who = "proxy", (request.headers.x-key-name) = "computed key" }
      add_request_headers = { x-trail = "proxy" }
      add_query_params = { page = "2" }
    }
  }
}
definitions {
  backend "b" {
    origin = "${backend.origin}"
    set_request_headers = { x-who = "backend", x-seen = backend_request.headers.x-who }
    remove_request_headers = ["x-list"]
    set_query_params = { v = null }
  }
}
`);
    const res = await send(gw.url('/'), '/m?secret=s&keep=k&v=gone', { headers: { 'x-drop': 'd', 'x-key-name': 'x-dynamic' } });
    const seen = JSON.parse(res.text) as SeenRequest;
    expect(seen.headers['x-drop']).toBeUndefined();
    expect(seen.headers['x-who']).toBe('backend');
    expect(seen.headers['x-seen']).toBe('proxy');
    expect(seen.headers['x-list']).toBeUndefined();
    expect(seen.headers['x-trail']).toBe('endpoint, proxy');
    expect(seen.headers['x-dynamic']).toBe('computed key');
    expect(seen.url).toBe('/m?keep=k&page=1&page=2');
  });

  it('response headers: server, api, endpoint, proxy, backend in that order; each removes, sets, adds', async () => {
    const backend = await startBackend((_req, res) => {
      res.writeHead(200, { 'x-from-backend': 'raw', 'x-secret': 's', 'content-type': 'text/plain' });
      res.end('body');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  set_response_headers = { x-order = "server", x-server = "s" }
  api {
    set_response_headers = { x-order = "api" }
    add_response_headers = { x-trail = "api" }
    endpoint "/r" {
      set_response_headers = { x-order = "endpoint" }
      add_response_headers = { x-trail = "endpoint" }
      proxy {
        backend = "b"
        set_response_headers = { x-order = "proxy" }
        add_response_headers = { x-trail = "proxy" }
      }
    }
  }
}
definitions {
  backend "b" {
    origin = "${backend.origin}"
    remove_response_headers = ["x-secret"]
    set_response_headers = { x-order = "backend", x-status = backend_response.status }
    add_response_headers = { x-trail = ["backend1", "backend2"] }
  }
}
`);
    const res = await send(gw.url('/'), '/r');
    expect(res.status).toBe(200);
    expect(res.text).toBe('body');
    expect(res.headers['x-order']).toBe('backend');
    expect(res.headers['x-server']).toBe('s');
    expect(res.headers['x-from-backend']).toBe('raw');
    expect(res.headers['x-secret']).toBeUndefined();
    expect(res.headers['x-status']).toBe('200');
    expect(res.headers['x-trail']).toBe('api, endpoint, proxy, backend1, backend2');
  });

  it('a null value under set removes a header; keys and values may be expressions', async () => {
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/n" {
    set_response_headers = { content-type = null, x-bad = request.headers.x-in }
    response { body = "b" }
  }
}
`);
    const ok = await send(gw.url('/'), '/n', { headers: { 'x-in': 'fine' } });
    expect(ok.headers['content-type']).toBeUndefined();
    expect(ok.headers['x-bad']).toBe('fine');
  });
});
