import { describe, expect, it } from 'vitest';
import { send, startGateway } from './testing/test-gateway.js';

describe('error_file templates', () => {
  it('renders the api .json template and the server HTML template with escaped values', async () => {
    const gw = await startGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  error_file = "errors/server.html"
  api {
    base_path = "/api"
    error_file = "errors/api.json"
    endpoint "/x" {
      response { body = "x" }
    }
  }
}
`,
      'errors/server.html': '<p>{{.http_status}} {{ .message }} at {{.path}} ({{.request_id}})</p>',
      'errors/api.json': '{"code": {{.http_status}}, "text": "{{.message}}", "where": "{{.path}}", "id": "{{.request_id}}"}',
    });
    const api = await send(gw.url(), '/api/missing%22quote');
    expect(api.status).toBe(404);
    expect(api.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(api.text)).toEqual({ code: 404, text: 'route not found error', where: '/api/missing%22quote', id: api.headers['gateway-request-id'] });
    const page = await send(gw.url(), '/nothing/<i>');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toBe(`<p>404 route not found error at /nothing/&#60;i&#62; (${String(page.headers['gateway-request-id'])})</p>`);
  });

  it('falls back to the default of the same type when a template is broken, and says so in the log', async () => {
    const gw = await startGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  error_file = "broken.html"
  api {
    base_path = "/api"
    error_file = "broken.json"
    endpoint "/x" {
      response { body = "x" }
    }
  }
}
`,
      'broken.html': '<p>{{.http_status</p>',
      'broken.json': '{"x": "{{.nope}}"}',
    });
    const page = await send(gw.url(), '/missing');
    expect(page.status).toBe(404);
    expect(page.text).toContain('<title>404 route not found error</title>');
    const api = await send(gw.url(), '/api/missing');
    expect(JSON.parse(api.text)).toMatchObject({ error: { status: 404, path: '/api/missing' } });
    expect(gw.lines.filter((l) => l.startsWith('WARN error_file'))).toHaveLength(2);
  });

  it('uses a files block error_file for its 404s', async () => {
    const gw = await startGateway({
      'portico.hcl': 'server {\n  hosts = ["*:0"]\n  files {\n    base_path = "/static"\n    document_root = "htdocs"\n    error_file = "files-error.html"\n  }\n}\n',
      'htdocs/a.txt': 'a',
      'files-error.html': 'no such file: {{.path}}',
    });
    expect((await send(gw.url(), '/static/b.txt')).text).toBe('no such file: /static/b.txt');
  });
});
