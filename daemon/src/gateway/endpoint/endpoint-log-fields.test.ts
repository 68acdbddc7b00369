import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { GatewayLogRecord } from '../contracts.js';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import { send } from '../http/testing/test-gateway.js';
import { accessRecord, startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';

const SECRET = 'a-test-secret-of-enough-length-0123456789';
const token = (sub: string): Promise<string> => new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(SECRET));

/** The access line's custom fields of server, api and endpoint see what the endpoint saw (docs/gateway.md, "Logs"). */
describe('custom_log_fields of server, api and endpoint', () => {
  it('read request.context of an access control, the buffered client body and the backend responses', async () => {
    const backend = await startBackend((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":7}');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  custom_log_fields = { server_sub = request.context.tok.sub }
  api {
    base_path = "/api"
    access_control = ["tok"]
    custom_log_fields = { api_item = request.json_body.item }
    endpoint "/orders" {
      custom_log_fields = {
        sub = request.context.tok.sub
        raw = request.body
        created = backend_responses.default.json_body.id
        status = backend_responses.default.status
      }
      proxy { backend = "b" }
    }
  }
  endpoint "/form" {
    custom_log_fields = { name = request.form_body.name[0] }
    response { body = "ok" }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
  jwt "tok" {
    signature_algorithm = "HS256"
    key = "${SECRET}"
  }
}
`);
    const body = JSON.stringify({ item: 'book' });
    const res = await send(gw.url('/'), '/api/orders', { method: 'POST', body, headers: { authorization: `Bearer ${await token('u-42')}`, 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    // The backend got the body that was buffered for the fields.
    expect(backend.seen.map((r) => r.body)).toEqual([body]);
    await expect.poll(() => accessRecord(gw, String(res.headers['gateway-request-id']))?.['custom']).toEqual({ server_sub: 'u-42', api_item: 'book', sub: 'u-42', raw: body, created: 7, status: 201 });

    const form = await send(gw.url('/'), '/form', { method: 'POST', body: 'name=ada&name=bob', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.text).toBe('ok');
    await expect.poll(() => accessRecord(gw, String(form.headers['gateway-request-id']))?.['custom']).toEqual({ server_sub: null, name: 'ada' });
    expect(gw.records.filter((r) => r.type === 'gateway_daemon')).toEqual([]);
  });

  it('are in the access line of a request an access control refused, with what they could read', async () => {
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/guarded" {
    access_control = ["tok"]
    custom_log_fields = { agent = request.headers.user-agent, sub = request.context.tok.sub }
    response { body = "never" }
  }
}
definitions {
  jwt "tok" {
    signature_algorithm = "HS256"
    key = "${SECRET}"
  }
}
`);
    const res = await send(gw.url('/'), '/guarded', { headers: { 'user-agent': 'probe/2' } });
    expect(res.status).toBe(401);
    await expect.poll(() => accessRecord(gw, String(res.headers['gateway-request-id']))).toMatchObject({ error_type: 'jwt_token_missing', custom: { agent: 'probe/2' } });
  });
});

describe('custom_log_fields of files and spa blocks', () => {
  it('read request.context of the access controls that guard the block', async () => {
    const gw = await startAccessGateway({
      'portico.hcl': `server {
  hosts = ["*:0"]
  files {
    base_path = "/static"
    document_root = "www"
    access_control = ["tok"]
    custom_log_fields = { sub = request.context.tok.sub }
  }
  spa {
    base_path = "/app"
    bootstrap_file = "www/index.html"
    paths = ["/**"]
    access_control = ["tok"]
    custom_log_fields = { app_sub = request.context.tok.sub }
  }
}
definitions {
  jwt "tok" {
    signature_algorithm = "HS256"
    key = "${SECRET}"
  }
}
`,
      'www/index.html': '<!doctype html><title>app</title>',
      'www/site.css': 'body{}',
    });
    const headers = { authorization: `Bearer ${await token('u-7')}` };
    const file = await send(gw.url('/'), '/static/site.css', { headers });
    expect(file.status).toBe(200);
    await expect.poll(() => accessLines(gw).find((r) => r['uid'] === file.headers['gateway-request-id'])?.['custom']).toEqual({ sub: 'u-7' });
    const app = await send(gw.url('/'), '/app/deep', { headers });
    expect(app.status).toBe(200);
    await expect.poll(() => accessLines(gw).find((r) => r['uid'] === app.headers['gateway-request-id'])?.['custom']).toEqual({ app_sub: 'u-7' });
  });
});

/** A custom_log_fields object that fails leaves the request alone and is logged as an error record with the request's uid, wherever it is. */
describe('custom_log_fields that fail to evaluate', () => {
  it('of the endpoint, the error_handler and the backend each log an error record with the uid', async () => {
    const backend = await startBackend((_req, res) => {
      res.writeHead(500).end('boom');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/fails" {
    custom_log_fields = { n = to_number(request.headers.x-n) }
    proxy {
      backend = "b"
      expected_status = [200]
    }
    error_handler "unexpected_status" {
      custom_log_fields = { m = to_number(request.headers.x-m) }
      response {
        status = 503
        body = "handled"
      }
    }
  }
}
definitions {
  backend "b" {
    origin = "${backend.origin}"
    custom_log_fields = { b = to_number(request.headers.x-b) }
  }
}
`);
    const res = await send(gw.url('/'), '/fails', { headers: { 'x-n': 'not a number', 'x-m': 'nor this', 'x-b': 'nor that' } });
    expect([res.status, res.text]).toEqual([503, 'handled']);
    const uid = res.headers['gateway-request-id'];
    const errors = (): GatewayLogRecord[] => gw.records.filter((r) => r.type === 'gateway_daemon');
    // The handler's fields include the endpoint's (inherited): that object fails there too.
    await expect.poll(() => errors().length).toBe(4);
    expect(errors().map((r) => [r.level, r['uid']])).toEqual(Array.from({ length: 4 }, () => ['error', uid]));
    expect(errors().map((r) => String(r['message']).replace(/:.*$/, '')).sort()).toEqual(['custom_log_fields', 'custom_log_fields of backend "b"', 'custom_log_fields of error_handler', 'custom_log_fields of error_handler']);
    // The request and its access line are unaffected.
    await expect.poll(() => accessRecord(gw, String(uid))).toMatchObject({ status: 503, error_type: 'unexpected_status' });
  });
});
