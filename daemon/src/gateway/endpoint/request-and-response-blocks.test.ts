import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';

describe('request and response blocks', () => {
  it('request blocks send method, url, bodies with their content types, headers and query; the response block reads backend_responses', async () => {
    const backend = await startBackend((req, res) => {
      const body = JSON.stringify({ method: req.method, url: req.url, type: req.headers['content-type'], x: req.headers['x-one'] ?? null, body: req.body });
      res.writeHead(201, { 'content-type': 'application/json', 'set-cookie': ['s=1; Path=/', 's=2'] });
      res.end(body);
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/combine" {
    request "text" {
      url = "${backend.origin}/text"
      method = "post"
      body = "hello \${request.query.who[0]}"
      headers = { x-one = "1" }
      query_params = { q = ["a", "b"] }
    }
    request "json" {
      url = "${backend.origin}/json"
      method = "PUT"
      json_body = { n = 1 }
    }
    request "form" {
      url = "${backend.origin}/form"
      method = "POST"
      form_body = { a = "1", b = ["2", "3"] }
    }
    response {
      status = 207
      headers = { x-status = backend_responses.text.status, x-cookie = backend_responses.text.cookies.s }
      json_body = [backend_responses.text.json_body, backend_responses.json.json_body, backend_responses.form.json_body]
    }
  }
}
`);
    const res = await send(gw.url('/'), '/combine?who=you');
    expect(res.status).toBe(207);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['x-status']).toBe('201');
    expect(res.headers['x-cookie']).toBe('2');
    expect(JSON.parse(res.text)).toEqual([
      { method: 'POST', url: '/text?q=a&q=b', type: 'text/plain', x: '1', body: 'hello you' },
      { method: 'PUT', url: '/json', type: 'application/json', x: null, body: '{"n":1}' },
      { method: 'POST', url: '/form', type: 'application/x-www-form-urlencoded', x: null, body: 'a=1&b=2&b=3' },
    ]);
  });

  it('a response block alone answers text/plain with status 200 by default', async () => {
    const gw = await startEndpointGateway('server {\n  hosts = ["*:0"]\n  endpoint "/hi" {\n    response { body = "hi ${request.method}" }\n  }\n}\n');
    const res = await send(gw.url('/'), '/hi');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain');
    expect(res.text).toBe('hi GET');
  });

  it('an evaluation failure answers 500 and logs the expression position', async () => {
    const gw = await startEndpointGateway('server {\n  hosts = ["*:0"]\n  endpoint "/bad" {\n    response { body = 1 + request.headers.x }\n  }\n}\n');
    const res = await send(gw.url('/'), '/bad', { headers: { x: 'notanumber' } });
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('notanumber');
    await expect.poll(() => gw.records.find((r) => r.type === 'gateway_access')).toBeDefined();
    const record = gw.records.find((r) => r.type === 'gateway_access');
    expect(JSON.stringify(record)).toMatch(/portico\.hcl:4,\d+-\d+/);
  });
});
