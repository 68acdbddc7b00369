import { describe, expect, it } from 'vitest';
import { send, startGateway } from './testing/test-gateway.js';

describe('spa', () => {
  it('answers its paths (/** included) with the bootstrap file, while existing files and endpoints win', async () => {
    const gw = await startGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  files {
    document_root = "htdocs"
  }
  spa {
    bootstrap_file = "htdocs/index.html"
    paths = ["/**"]
  }
  endpoint "/api/ping" {
    response { body = "pong" }
  }
}
`,
      'htdocs/index.html': '<div id="app"></div>',
      'htdocs/app.js': 'console.log(1)',
    });
    const deep = await send(gw.url(), '/app/users/42');
    expect(deep.status).toBe(200);
    expect(deep.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(deep.text).toBe('<div id="app"></div>');
    expect((await send(gw.url(), '/app.js')).text).toBe('console.log(1)');
    expect((await send(gw.url(), '/api/ping')).text).toBe('pong');
  });

  it('serves only its paths under its base path', async () => {
    const gw = await startGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  spa {
    base_path = "/app"
    bootstrap_file = "boot.html"
    paths = ["/", "/users/**"]
  }
}
`,
      'boot.html': 'boot',
    });
    // "/app" + "/" joins to "/app/" (the loader keeps a trailing slash).
    expect((await send(gw.url(), '/app/')).text).toBe('boot');
    expect((await send(gw.url(), '/app/users/1/edit')).text).toBe('boot');
    expect((await send(gw.url(), '/app/other')).status).toBe(404);
    expect((await send(gw.url(), '/users/1')).status).toBe(404);
  });
});
