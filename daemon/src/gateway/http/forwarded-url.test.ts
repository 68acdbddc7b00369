import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostName, requestHost, requestUrl } from './forwarded-url.js';
import { startEndpointGateway } from '../endpoint/testing/endpoint-gateway.js';
import { send } from './testing/test-gateway.js';

const url = (accept: ('proto' | 'host' | 'port')[], headers: Record<string, string>, xfh = false) => requestUrl({ xfh, acceptForwardedUrl: accept }, headers, '/p?q=1', 'fallback:1').href;

describe('forwarded headers', () => {
  it('shapes the request URL from the X-Forwarded-* headers accept_forwarded_url allows', () => {
    const headers = { host: 'gw.internal:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'www.example.com', 'x-forwarded-port': '8443' };
    expect(url([], headers)).toBe('http://gw.internal:8080/p?q=1');
    expect(url(['proto'], headers)).toBe('https://gw.internal/p?q=1');
    expect(url(['host'], headers)).toBe('http://www.example.com:8080/p?q=1');
    expect(url(['proto', 'host'], headers)).toBe('https://www.example.com/p?q=1');
    expect(url(['proto', 'host', 'port'], headers)).toBe('https://www.example.com:8443/p?q=1');
    // The port in X-Forwarded-Port wins over one in X-Forwarded-Host.
    expect(url(['host', 'port'], { ...headers, 'x-forwarded-host': 'www.example.com:9000' })).toBe('http://www.example.com:8443/p?q=1');
    expect(url(['host'], { ...headers, 'x-forwarded-host': 'www.example.com:9000' })).toBe('http://www.example.com:9000/p?q=1');
    // Unusable values are ignored.
    expect(url(['proto', 'port'], { host: 'gw', 'x-forwarded-proto': 'gopher', 'x-forwarded-port': 'x' })).toBe('http://gw/p?q=1');
  });

  it('with xfh, matches virtual hosts and builds request.url from X-Forwarded-Host', async () => {
    const gw = await startEndpointGateway(`
server "public" {
  hosts = ["www.example.com:0"]
  endpoint "/where" {
    response {
      json_body = { server = "public", url = request.url }
    }
  }
}
server "internal" {
  hosts = ["*:0"]
  endpoint "/where" {
    response { body = "internal" }
  }
}
settings {
  xfh = true
}
`);
    const res = await send(gw.url('/'), '/where', { headers: { host: 'gw.internal', 'x-forwarded-host': 'WWW.example.com' } });
    expect(JSON.parse(res.text)).toEqual({ server: 'public', url: 'http://www.example.com/where' });
    expect((await send(gw.url('/'), '/where', { headers: { host: 'www.example.com', 'x-forwarded-host': 'other.example.com' } })).text).toBe('internal');
  });

  it('request.url, origin, protocol, host and port in an endpoint follow accept_forwarded_url', async () => {
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/where" {
    response {
      json_body = [request.url, request.origin, request.protocol, request.host, request.port]
    }
  }
}
settings {
  accept_forwarded_url = ["proto", "host", "port"]
}
`);
    const where = async (headers: Record<string, string>) => JSON.parse((await send(gw.url('/'), '/where?q=1', { headers })).text) as unknown;
    expect(await where({ host: 'gw.internal:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example', 'x-forwarded-port': '8443' })).toEqual([
      'https://shop.example:8443/where?q=1',
      'https://shop.example:8443',
      'https',
      'shop.example',
      8443,
    ]);
    // Without the headers (or with unusable ones): the request's own Host.
    expect(await where({ host: 'gw.internal:8080', 'x-forwarded-proto': 'gopher' })).toEqual(['http://gw.internal:8080/where?q=1', 'http://gw.internal:8080', 'http', 'gw.internal', 8080]);
  });
});

describe('host values', () => {
  // What the two functions answer, written out as the regular expressions say it.
  const valid = (value: string) => /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._~%!$&'()*+;=-]+)(:\d{1,5})?$/.test(value);
  const nameOf = (value: string) => (value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : value.replace(/:\d*$/, '')).toLowerCase().replace(/\.$/, '');
  const host = fc.oneof(
    fc.constantFrom('gw.example', 'GW.Example.:8080', 'gw.example.', '[::1]:9', '[::1', 'a b', 'x:99999', 'x:', 'x:1:2', '', 'ÉX', '127.0.0.1:8080', 'h..'),
    fc.string({ maxLength: 12 }),
    fc.stringMatching(/^[A-Za-z0-9.]{1,10}(:\d{0,6})?$/),
    // Longer than the values kept (259 characters), around that length.
    fc.integer({ min: 250, max: 270 }).map((n) => `${'H'.repeat(n - 5)}:8080`),
  );

  it('are checked and named the same whether seen before or not, past the number of values kept too', () => {
    const seen = fc.sample(host, { numRuns: 3000, seed: 7 });
    // Twice over: the second pass answers from what the first kept (up to 1,024 values).
    for (const value of [...seen, ...seen]) {
      // A list's first entry (proxies append), trimmed.
      const head = value.split(',')[0]!.trim();
      expect(requestHost({ xfh: false }, { host: value }, 'fallback:1')).toBe(valid(head) ? head : 'fallback:1');
      expect(hostName(value)).toBe(nameOf(value));
    }
  });
});
