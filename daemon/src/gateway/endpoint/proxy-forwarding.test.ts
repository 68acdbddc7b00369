import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway, type SeenRequest } from './testing/endpoint-gateway.js';

describe('proxy forwarding', () => {
  it('forwards method, headers (minus hop-by-hop and Host), body and query; adds X-Forwarded-For and the request id; streams the answer back', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/api/**" {
    proxy {
      backend = "b"
    }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`);
    const res = await send(gw.url('/'), '/api/things?a=1&a=2', { method: 'PUT', headers: { 'x-custom': 'yes', connection: 'keep-alive, x-hop', 'x-hop': 'h', 'keep-alive': 'timeout=5', 'content-type': 'text/plain' }, body: 'payload' });
    expect(res.status).toBe(200);
    const seen = JSON.parse(res.text) as SeenRequest;
    expect(seen.method).toBe('PUT');
    expect(seen.url).toBe('/api/things?a=1&a=2');
    expect(seen.body).toBe('payload');
    expect(seen.headers['x-custom']).toBe('yes');
    expect(seen.headers['keep-alive']).toBeUndefined();
    expect(seen.headers['x-hop']).toBeUndefined();
    expect(seen.headers['host']).toBe(new URL(backend.origin).host);
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.headers['gateway-request-id']).toBe(res.headers['gateway-request-id']);
  });

  it('backend path replaces the request path with the wildcard match; path_prefix prefixes; hostname sets Host; basic_auth sets Authorization', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/files/**" {
    proxy {
      backend {
        origin = "${backend.origin}"
        path = "/store/**"
        path_prefix = "/v2"
        hostname = "files.internal"
        basic_auth = "user:\${request.headers.x-pass}"
      }
    }
  }
}
`);
    const seen = (await (await fetch(gw.url('/files/a/b.txt?x=1'), { headers: { 'x-pass': 'pw' } })).json()) as SeenRequest;
    expect(seen.url).toBe('/v2/store/a/b.txt?x=1');
    expect(seen.headers['host']).toBe('files.internal');
    expect(seen.headers['authorization']).toBe(`Basic ${Buffer.from('user:pw').toString('base64')}`);
  });

  it('a proxy url gives path and query; its host must equal the backend origin', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/one" {
    proxy {
      backend = "b"
      url = "${backend.origin}/other?fixed=1&a=url"
    }
  }
  endpoint "/mismatch" {
    proxy {
      backend = "b"
      url = "http://\${request.headers.x-host}/x"
    }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`);
    const seen = (await (await fetch(gw.url('/one?a=client&k=2'))).json()) as SeenRequest;
    expect(seen.url).toBe('/other?k=2&fixed=1&a=url');
    const bad = await fetch(gw.url('/mismatch'), { headers: { 'x-host': 'elsewhere.example' } });
    expect(bad.status).toBe(500);
    expect(backend.seen).toHaveLength(1);
  });

  it("passes the client's query on as it came, on the plain and the general path, and under a url's parameters", async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/plain/**" {
    proxy { backend = "b" }
  }
  endpoint "/general/**" {
    # A status modifier: the general path.
    set_response_status = 200
    proxy { backend = "b" }
  }
  endpoint "/url/**" {
    proxy {
      backend = "b"
      url = "${backend.origin}/u/**?z=1"
    }
  }
  endpoint "/modified/**" {
    proxy {
      backend = "b"
      add_query_params = { added = "1 2" }
    }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`);
    const raw = '?a=b%20c&y=~&flag&z=a+b&u=%C3%BC&s=%3B';
    const seen = async (path: string) => ((await (await fetch(gw.url(`${path}${raw}`))).json()) as SeenRequest).url;
    expect(await seen('/plain/p')).toBe(`/plain/p${raw}`);
    expect(await seen('/general/p')).toBe(`/general/p${raw}`);
    expect(await seen('/url/p')).toBe('/u/p?a=b%20c&y=~&flag&u=%C3%BC&s=%3B&z=1');
    // A query modifier re-encodes the query it works on.
    expect(await seen('/modified/p')).toBe('/modified/p?a=b+c&y=%7E&flag=&z=a+b&u=%C3%BC&s=%3B&added=1+2');
  });
});
