import { describe, expect, it } from 'vitest';
import { STANDARD_METHODS } from './build-endpoints.js';
import { loadOk } from './testing/config-files.js';

const RESPONSE = '    response {\n      body = "ok"\n    }';

describe('endpoints in the model', () => {
  it('joins server, api and endpoint paths, and inherits allowed_methods from the api', async () => {
    const config = await loadOk({
      'portico.hcl': `server {
  base_path = "/srv/"
  endpoint "/free" {
${RESPONSE}
  }
  api {
    base_path = "api"
    allowed_methods = ["get", "*", "BREW"]
    endpoint "/items/{id}" {
${RESPONSE}
    }
    endpoint "/only-post/" {
      allowed_methods = ["post"]
${RESPONSE}
    }
    endpoint "/**" {
${RESPONSE}
    }
  }
}
`,
    });
    const server = config.servers[0];
    expect(server?.endpoints.map((e) => [e.pattern, e.path, e.allowedMethods])).toEqual([['/free', '/srv/free', STANDARD_METHODS]]);
    expect(server?.apis[0]?.endpoints.map((e) => [e.path, e.allowedMethods])).toEqual([
      ['/srv/api/items/{id}', [...STANDARD_METHODS, 'BREW']],
      ['/srv/api/only-post/', ['POST']],
      ['/srv/api/**', [...STANDARD_METHODS, 'BREW']],
    ]);
  });

  it('gives an endpoint its own beta_required_permission, else its api one', async () => {
    const config = await loadOk({
      'portico.hcl': `server {
  api {
    beta_required_permission = "api"
    endpoint "/inherits" {
${RESPONSE}
    }
    endpoint "/by-method" {
      beta_required_permission = { get = "read", "*" = "" }
${RESPONSE}
    }
    endpoint "/per-request" {
      beta_required_permission = request.path_params.p
${RESPONSE}
    }
  }
}
`,
    });
    const [inherits, byMethod, perRequest] = config.servers[0]?.apis[0]?.endpoints ?? [];
    expect(inherits?.requiredPermission).toEqual({ kind: 'static', value: 'api' });
    expect(byMethod?.requiredPermission).toEqual({ kind: 'static', value: { GET: 'read', '*': '' } });
    expect(perRequest?.requiredPermission?.kind).toBe('expr');
  });

  it('chains custom_log_fields from the server down, and keeps modifiers per context', async () => {
    const config = await loadOk({
      'portico.hcl': `server {
  custom_log_fields = { s = 1 }
  set_response_headers = { server = "s" }
  api {
    custom_log_fields = { a = 2 }
    endpoint "/" {
      custom_log_fields = { e = 3 }
      set_response_status = 201
      remove_query_params = ["debug"]
      proxy {
        url = "http://backend.example/"
        add_request_headers = { p = "1" }
      }
      error_handler {
        custom_log_fields = { h = 4 }
        set_response_headers = { handled = "yes" }
      }
    }
  }
}
`,
    });
    const server = config.servers[0];
    const endpoint = server?.apis[0]?.endpoints[0];
    const values = (fields: readonly { kind: string; value?: unknown }[] | undefined): unknown[] => (fields ?? []).map((f) => f.value);
    expect(values(server?.customLogFields)).toEqual([{ s: 1 }]);
    expect(values(endpoint?.customLogFields)).toEqual([{ s: 1 }, { a: 2 }, { e: 3 }]);
    expect(values(endpoint?.errorHandlers[0]?.customLogFields)).toEqual([{ s: 1 }, { a: 2 }, { e: 3 }, { h: 4 }]);
    expect(server?.modifiers.setResponseHeaders).toEqual({ kind: 'static', value: { server: 's' } });
    expect(endpoint?.modifiers).toMatchObject({ setResponseStatus: { kind: 'static', value: 201 }, removeQueryParams: { kind: 'static', value: ['debug'] }, setResponseHeaders: null });
    expect(endpoint?.proxies[0]?.modifiers.addRequestHeaders).toEqual({ kind: 'static', value: { p: '1' } });
    expect(endpoint?.errorHandlers[0]).toMatchObject({ kinds: ['*'], modifiers: { setResponseHeaders: { kind: 'static', value: { handled: 'yes' } } } });
  });

  it('records access_control and disable_access_control as written (empty lists are valid)', async () => {
    const config = await loadOk({ 'portico.hcl': `server {\n  endpoint "/" {\n    disable_access_control = []\n${RESPONSE}\n  }\n}\n` });
    expect(config.servers[0]?.endpoints[0]?.access).toEqual({ accessControl: [], disableAccessControl: [], effective: [] });
  });

  it('builds proxies, requests and the response with their defaults', async () => {
    const config = await loadOk({
      'portico.hcl': `server {
  endpoint "/" {
    proxy {
      backend = "api"
      expected_status = [200, 204]
    }
    request "audit" {
      url = "http://audit.example/log"
      body = "seen"
      headers = { x = "1" }
    }
    response {
      json_body = { ok = true }
    }
  }
}
definitions {
  backend "api" { origin = "http://api.example" }
}
`,
    });
    const e = config.servers[0]?.endpoints[0];
    expect(e?.proxies).toMatchObject([{ name: 'default', backend: 'api', url: null, expectedStatus: [200, 204], websockets: null, dependsOn: [] }]);
    expect(e?.requests).toMatchObject([
      { name: 'audit', backend: 'anonymous_7_5', url: { kind: 'static', value: 'http://audit.example/log' }, method: { kind: 'static', value: 'GET' }, body: { kind: 'static', value: 'seen' }, headers: { kind: 'static', value: { x: '1' } }, expectedStatus: null },
    ]);
    expect(e?.response).toMatchObject({ status: { kind: 'static', value: 200 }, body: null, jsonBody: { kind: 'static', value: { ok: true } } });
    expect(config.backends['anonymous_7_5']).toMatchObject({ anonymous: true, origin: 'http://audit.example', timeout: 300_000 });
  });

  it('orders proxies and requests in stages by their backend_responses references', async () => {
    const config = await loadOk({
      'portico.hcl': `server {
  endpoint "/" {
    request "token" {
      url = "http://auth.example/token"
    }
    request "profile" {
      url = "http://users.example/me"
      headers = { authorization = "Bearer \${backend_responses.token.json_body.access_token}" }
    }
    request "audit" {
      url = "http://audit.example/"
    }
    proxy {
      url = "http://api.example/"
      set_request_headers = { user = backend_responses.profile.json_body.id }
      set_response_headers = { own = backend_responses.default.status, other = backend_responses.elsewhere.status }
    }
  }
}
`,
    });
    const e = config.servers[0]?.endpoints[0];
    expect(e?.stages).toEqual([['token', 'audit'], ['profile'], ['default']]);
    expect(e?.requests.map((r) => [r.name, r.dependsOn])).toEqual([
      ['token', []],
      ['profile', ['token']],
      ['audit', []],
    ]);
    expect(e?.proxies[0]?.dependsOn).toEqual(['profile']);
  });

  it('builds error handlers with their kinds, nested blocks and sequences', async () => {
    const config = await loadOk({
      'portico.hcl': `server {
  api {
    error_handler "backend_timeout backend_unhealthy" "unexpected_status" {
      request "notify" {
        url = "http://alerts.example/"
      }
      response {
        status = 503
        body = backend_responses.notify.body
      }
      error_handler "backend" {
        set_response_status = 502
      }
    }
    endpoint "/" {
${RESPONSE}
    }
  }
}
`,
    });
    const handler = config.servers[0]?.apis[0]?.errorHandlers[0];
    expect(handler?.kinds).toEqual(['backend_timeout', 'backend_unhealthy', 'unexpected_status']);
    expect(handler?.requests.map((r) => r.name)).toEqual(['notify']);
    expect(handler?.response?.status).toEqual({ kind: 'static', value: 503 });
    expect(handler?.response?.body?.kind).toBe('expr');
    expect(handler?.stages).toEqual([['notify']]);
    expect(handler?.errorHandlers.map((h) => h.kinds)).toEqual([['backend']]);
  });

  it('makes an anonymous backend from a url alone; its origin is null when the url is per request', async () => {
    const config = await loadOk({
      'portico.hcl': `server {
  endpoint "/a" {
    proxy {
      url = "https://static.example:8443/x"
    }
  }
  endpoint "/b" {
    proxy {
      url = "https://\${request.headers.host}/x"
    }
  }
}
`,
    });
    const [a, b] = config.servers[0]?.endpoints ?? [];
    expect(a?.proxies[0]?.backend).toBe('anonymous_3_5');
    expect(b?.proxies[0]?.backend).toBe('anonymous_8_5');
    expect(config.backends['anonymous_3_5']?.origin).toBe('https://static.example:8443');
    expect(config.backends['anonymous_8_5']?.origin).toBeNull();
  });

  it('serves files and spa blocks under their joined base paths', async () => {
    const config = await loadOk({
      'portico.hcl': `server {
  base_path = "/site"
  files {
    base_path = "/assets"
    document_root = "public"
  }
  spa {
    bootstrap_file = "public/index.html"
    paths = ["/app/**", "/"]
  }
}
`,
      'public/index.html': '<html>',
    });
    const server = config.servers[0];
    expect(server?.files.map((f) => [f.basePath, f.documentRoot.endsWith('/public')])).toEqual([['/site/assets', true]]);
    expect(server?.spas.map((s) => [s.basePath, s.paths, s.bootstrapFile.endsWith('/public/index.html')])).toEqual([['/site', ['/site/app/**', '/site/'], true]]);
  });
});
