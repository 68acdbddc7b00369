import { describe, expect, it } from 'vitest';
import { createEndpointHandler } from '../endpoint/endpoint-handler.js';
import { send, startGateway } from '../http/testing/test-gateway.js';

const BASIC = `Basic ${Buffer.from('ann:pw').toString('base64')}`;

describe('warnings of routes no request can pass', () => {
  it('a basic_auth and a Bearer jwt on one route (the one Authorization header) load, refuse every request with 401, and each apply warns naming every such route and where it is', async () => {
    const gw = await startGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  access_control = ["ba"]
  endpoint "/both" {
    access_control = ["tok"]
    response { body = "never" }
  }
  endpoint "/basic-only" {
    response { body = "basic" }
  }
  endpoint "/cookie-jwt" {
    access_control = ["from_cookie"]
    response { body = "cookie" }
  }
  api {
    base_path = "/api"
    access_control = ["tok"]
    endpoint "/a" {
      response { body = "a" }
    }
    endpoint "/b" {
      disable_access_control = ["ba"]
      response { body = "b" }
    }
  }
  files {
    base_path = "/static"
    document_root = "."
    access_control = ["tok"]
  }
}
definitions {
  basic_auth "ba" {
    user = "ann"
    password = "pw"
  }
  jwt "tok" {
    signature_algorithm = "HS256"
    key = "k"
  }
  jwt "from_cookie" {
    signature_algorithm = "HS256"
    key = "k"
    cookie = "t"
  }
}
`,
    }, { endpointHandler: createEndpointHandler() });
    const warnings = gw.lines.filter((l) => l.startsWith('WARN'));
    expect(warnings).toEqual([
      expect.stringMatching(/^WARN endpoint "\/both" \(.*portico\.hcl:5\) can never be passed: its access controls "ba" \(basic_auth\) and "tok" \(jwt, a Bearer token\) both read the Authorization header, which a request has once, so every request is refused with 401; read the jwt's token from another header, a cookie or token_value, or leave one of them out here \(disable_access_control\)$/),
      expect.stringMatching(/^WARN endpoint "\/api\/a" \(.*portico\.hcl:19\) can never be passed: its access controls "ba" \(basic_auth\) and "tok"/),
      expect.stringMatching(/^WARN files "\/static" \(.*portico\.hcl:27\) can never be passed/),
    ]);
    // The warning says what the gateway does: Basic credentials satisfy one and fail the other.
    expect((await send(gw.url(), '/both', { headers: { authorization: BASIC } })).status).toBe(401);
    expect((await send(gw.url(), '/basic-only', { headers: { authorization: BASIC } })).status).toBe(200);
    expect((await send(gw.url(), '/cookie-jwt', { headers: { authorization: BASIC } })).status).toBe(401);
    expect((await send(gw.url(), '/api/b', { headers: { authorization: BASIC } })).status).toBe(401);
  });

  it('a basic_auth with no password and no htpasswd user (an unset variable, an empty file) loads, refuses every request, and is named with the routes it guards', async () => {
    const gw = await startGateway(
      {
        'portico.hcl': `
server {
  hosts = ["*:0"]
  endpoint "/x" {
    access_control = ["ba"]
    response { body = "x" }
  }
  endpoint "/y" {
    access_control = ["ba", "file"]
    response { body = "y" }
  }
}
definitions {
  basic_auth "ba" {
    user = "ann"
    password = env.BA_PASSWORD
  }
  basic_auth "file" {
    htpasswd_file = "users.htpasswd"
  }
  basic_auth "unused" {
    user = "bob"
  }
}
`,
        'users.htpasswd': '# no users yet\n',
      },
      { endpointHandler: createEndpointHandler() },
    );
    expect(gw.lines.filter((l) => l.startsWith('WARN'))).toEqual([
      expect.stringMatching(/^WARN basic_auth "ba" \(.*portico\.hcl:14\) admits no one: it has no password and no htpasswd_file, so the routes it guards \(endpoint "\/x", endpoint "\/y"\) refuse every request with 401; set its password \(an environment variable it reads may be unset\) or list users in an htpasswd_file$/),
      expect.stringMatching(/^WARN basic_auth "file" \(.*portico\.hcl:18\) admits no one: it has no password and its htpasswd_file .*users\.htpasswd names no user, so the route it guards \(endpoint "\/y"\) refuses every request with 401; /),
    ]);
    expect((await send(gw.url(), '/x', { headers: { authorization: `Basic ${Buffer.from('ann:').toString('base64')}` } })).status).toBe(401);
  });
});
