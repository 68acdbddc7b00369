// A plain proxy route may address its backend with expressions: the proxy's `url` and the
// backend's `path`, `path_prefix`, `hostname` and `basic_auth` (reading `request` without its
// body, `env`, `gateway`, `backends`; no request function). The plain handler evaluates them
// where the general path does, in its order. The same routes under an api with an (unrelated)
// handler reading the proxy's exchange take the general path; both are sent the same requests
// and must send the backend, answer and log the same.
import { describe, expect, it } from 'vitest';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import type { GatewayLogRecord } from '../contracts.js';
import { echo, startBackend } from './testing/endpoint-gateway.js';
import { compilesPlain, GENERAL_PATH_HANDLER, sendBoth } from './testing/guarded-backend.js';

function endpoints(origin: string): string {
  return `
    endpoint "/url/**" {
      proxy {
        backend = "b"
        url     = "${origin}/items/\${request.headers.x-item}?via=url"
      }
    }
    endpoint "/backend/**" {
      proxy {
        backend = "dyn"
      }
    }`;
}

function config(origin: string): string {
  return `
server {
  hosts = ["*:0"]
  api {
    base_path = "/plain"
    ${endpoints(origin)}
  }
  api {
    base_path = "/general"
    ${GENERAL_PATH_HANDLER}
    ${endpoints(origin)}
  }
}
definitions {
  backend "b" {
    origin = "${origin}"
  }
  backend "dyn" {
    origin      = "${origin}"
    path        = "/v\${request.headers.x-version}/**"
    path_prefix = "/api/\${1 + request.headers.x-shard}"
    hostname    = request.headers.x-host
    basic_auth  = "\${env.BACKEND_USER}:\${request.headers.x-pass}"
  }
}
`;
}

const ENV = { BACKEND_USER: 'ada' };

describe('a plain proxy route that addresses its backend with expressions', () => {
  it('compiles to the plain handler unless an address reads what a plain route cannot', async () => {
    const hcl = config('http://127.0.0.1:9');
    for (const pattern of ['/url/**', '/backend/**']) {
      expect(await compilesPlain(hcl, pattern, '/plain', ENV), pattern).toBe(true);
      expect(await compilesPlain(hcl, pattern, '/general', ENV), pattern).toBe(false);
    }
    const general: [string, string, string][] = [
      ['${request.headers.x-item}?via=url', '${request.body}', '/url/**'],
      ['${request.headers.x-item}?via=url', '${backend_responses.default.status}', '/url/**'],
      ['hostname    = request.headers.x-host', 'hostname    = request.json_body.host', '/backend/**'],
      ['hostname    = request.headers.x-host', 'hostname    = backend_requests.default.url', '/backend/**'],
      ['/v${request.headers.x-version}/**', '/v${oauth2_verifier()}/**', '/backend/**'],
    ];
    for (const [from, to, pattern] of general) {
      const changed = hcl.replaceAll(from, to);
      expect(changed, to).not.toEqual(hcl);
      expect(await compilesPlain(changed, pattern, '/plain', ENV), to).toBe(false);
    }
  });

  it('sends the backend the URL, Host and credentials the general path sends, and fails as it fails', async () => {
    const backend = await startBackend(echo);
    const gw = await startAccessGateway({ 'portico.hcl': config(backend.origin) }, ENV);
    const cases: [string, Record<string, string>][] = [
      ['/url/x?q=1', { 'x-item': '7' }],
      // A null in a template is an error: the general path's 500, the backend never asked.
      ['/url/x', {}],
      ['/backend/a/b?q=2', { 'x-version': '2', 'x-shard': '1', 'x-host': 'h.example', 'x-pass': 'pw' }],
      ['/backend/a', { 'x-shard': '4', 'x-version': '1', 'x-pass': '' }],
      // `1 + "abc"` fails as well.
      ['/backend/a', { 'x-shard': 'abc' }],
    ];
    const seen = (prefix: string) => async ([path, headers]: [string, Record<string, string>]) => {
      const res = await fetch(gw.url(`${prefix}${path}`), { headers });
      const text = await res.text();
      if (res.status !== 200) return { status: res.status };
      const got = JSON.parse(text) as { url: string; headers: Record<string, string> };
      const host = got.headers['host'] === new URL(backend.origin).host ? '<origin>' : got.headers['host'];
      return { status: res.status, url: got.url.replace(prefix, '<route>'), host, authorization: got.headers['authorization'] ?? null };
    };
    const { plain, general } = await sendBoth(cases, seen);
    expect(plain).toEqual(general);
    expect(plain).toEqual([
      { status: 200, url: '/items/7?q=1&via=url', host: '<origin>', authorization: null },
      { status: 500 },
      { status: 200, url: '/api/2/v2/a/b?q=2', host: 'h.example', authorization: `Basic ${Buffer.from('ada:pw').toString('base64')}` },
      { status: 200, url: '/api/5/v1/a', host: '<origin>', authorization: `Basic ${Buffer.from('ada:').toString('base64')}` },
      { status: 500 },
    ]);
    expect(backend.seen).toHaveLength(6);
    const lines = (prefix: string) =>
      accessLines(gw)
        .filter((l: GatewayLogRecord) => String(l['url']).includes(prefix))
        .map((l) => [l['status'], l['error_type'] ?? null, l['handler']]);
    expect(lines('/plain/')).toHaveLength(cases.length);
    expect(lines('/plain/')).toEqual(lines('/general/'));
  });
});
