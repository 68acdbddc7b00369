import { describe, expect, it } from 'vitest';
import { loadOk } from '../config/testing/config-files.js';
import { routesView } from './routes-view.js';

describe('routesView', () => {
  it('lists every route with the access controls left after inheritance and disabling, and no secrets', async () => {
    const config = await loadOk({
      'portico.hcl': `server "edge" {
  access_control = ["ops"]
  files {
    document_root = "."
    disable_access_control = ["ops"]
  }
  api {
    base_path = "/api"
    access_control = ["tok"]
    endpoint "/items" {
      beta_required_permission = { GET = "read" }
      response { body = "x" }
    }
  }
  endpoint "/status" {
    allowed_methods = ["GET"]
    response { body = "ok" }
  }
}
definitions {
  basic_auth "ops" {
    user = "admin"
    password = "very-secret-password"
    realm = "ops"
  }
  jwt "tok" {
    signature_algorithm = "HS256"
    key = "very-secret-key"
  }
}
`,
    });
    const view = routesView(config);
    expect(view.routes).toEqual([
      { server: 'edge', kind: 'files', path: '/**', methods: ['GET', 'HEAD'], guards: [], permission: null },
      // The api's paths no route takes: 404 only after its guards (config/unrouted.ts).
      { server: 'edge', kind: 'unrouted', path: '/api/**', methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], guards: [{ label: 'ops', kind: 'basic_auth' }, { label: 'tok', kind: 'jwt' }], permission: null },
      { server: 'edge', kind: 'endpoint', path: '/api/items', methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], guards: [{ label: 'ops', kind: 'basic_auth' }, { label: 'tok', kind: 'jwt' }], permission: { GET: 'read' } },
      { server: 'edge', kind: 'endpoint', path: '/status', methods: ['GET'], guards: [{ label: 'ops', kind: 'basic_auth' }], permission: null },
    ]);
    expect(view.accessControls).toEqual([
      { label: 'ops', kind: 'basic_auth', detail: 'user "admin", realm "ops"', login: null },
      { label: 'tok', kind: 'jwt', detail: 'Authorization bearer, HS256 key', login: null },
    ]);
    expect(JSON.stringify(view)).not.toMatch(/very-secret/);
  });
});
