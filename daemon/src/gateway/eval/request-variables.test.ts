import { describe, expect, it } from 'vitest';
import { loadOk } from '../config/testing/config-files.js';
import type { Dyn, JsonValue } from '../config/model.js';
import type { RequestInfo } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { evalDyn } from './eval-dyn.js';
import { RequestScope } from './request-scope.js';

const HCL = `
server {
  endpoint "/items/{id}" {
    response {
      json_body = {
        version = gateway.version
        home = env.HOME_DIR
        id = request.id
        method = request.method
        agent = request.headers.user-agent
        missing = request.headers.x-missing
        session = request.cookies.session
        tags = request.query.tag
        item = request.path_params.id
        body = request.body
        form = request.form_body.a
        json = request.json_body
        granted = request.context.beta_granted_permissions
        url = request.url
        origin = request.origin
        protocol = request.protocol
        host = request.host
        port = request.port
        path = request.path
        health = backends.b.health
        fallback = default(request.query.page[0], "1")
      }
    }
  }
}
definitions {
  backend "b" { origin = "http://127.0.0.1:1" }
}
`;

function requestInfo(headers: Record<string, string>): RequestInfo {
  return {
    id: 'req-1',
    method: 'POST',
    url: new URL('http://example.com:8080/items/42?tag=a&tag=b'),
    clientIp: '127.0.0.1',
    headers,
    pathParams: { id: '42' },
    wildcard: null,
    startedAt: Date.now(),
  };
}

describe('request variables', () => {
  it('gives every variable of the spec table, missing attributes as null', async () => {
    const config = await loadOk({ 'portico.hcl': HCL }, { HOME_DIR: '/home/x' });
    const endpoint = config.servers[0]?.endpoints[0];
    const scope = new RequestScope({
      config,
      request: requestInfo({ 'user-agent': 'ua/1', cookie: 'session=old; other=1; session=new', 'content-type': 'application/json' }),
    });
    scope.setBody(Buffer.from('{"k":[1,2]}'));
    const value = evalDyn(endpoint?.response?.jsonBody as Dyn<JsonValue>, scope);
    expect(value).toEqual({
      version: config.version,
      home: '/home/x',
      id: 'req-1',
      method: 'POST',
      agent: 'ua/1',
      missing: null,
      session: 'new',
      tags: ['a', 'b'],
      item: '42',
      body: '{"k":[1,2]}',
      form: null,
      json: { k: [1, 2] },
      granted: [],
      url: 'http://example.com:8080/items/42?tag=a&tag=b',
      origin: 'http://example.com:8080',
      protocol: 'http',
      host: 'example.com',
      port: 8080,
      path: '/items/42',
      health: { error: '', healthy: true, state: 'healthy' },
      fallback: '1',
    });
  });

  it('reads form_body only for urlencoded bodies', async () => {
    const config = await loadOk({ 'portico.hcl': 'server {\n endpoint "/" {\n response { json_body = [request.form_body.a, request.json_body] }\n }\n}\n' });
    const jsonBody = config.servers[0]?.endpoints[0]?.response?.jsonBody as Dyn<JsonValue>;
    const form = new RequestScope({ config, request: requestInfo({ 'content-type': 'application/x-www-form-urlencoded' }) });
    form.setBody(Buffer.from('a=1&a=2&b=3'));
    expect(evalDyn(jsonBody, form)).toEqual([['1', '2'], null]);
    const plain = new RequestScope({ config, request: requestInfo({ 'content-type': 'text/plain' }) });
    plain.setBody(Buffer.from('a=1'));
    expect(evalDyn(jsonBody, plain)).toEqual([null, null]);
  });

  it('oauth2_verifier gives one value per client request; jwt_sign with a label from the request fails naming it', async () => {
    const config = await loadOk({
      'portico.hcl': 'server {\n endpoint "/" {\n response {\n json_body = [oauth2_verifier(), oauth2_verifier(), unixtime()]\n }\n }\n endpoint "/sign" {\n response {\n body = jwt_sign(request.headers.profile, {})\n }\n }\n}\n',
    });
    const [first, second] = config.servers[0]?.endpoints ?? [];
    const a = evalDyn(first?.response?.jsonBody as Dyn<JsonValue>, new RequestScope({ config, request: requestInfo({}) })) as [string, string, number];
    const b = evalDyn(first?.response?.jsonBody as Dyn<JsonValue>, new RequestScope({ config, request: requestInfo({}) })) as [string, string, number];
    expect(a[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a[1]).toBe(a[0]);
    expect(b[0]).not.toBe(a[0]);
    expect(Math.abs(a[2] - Date.now() / 1000)).toBeLessThan(60);
    let error: unknown;
    try {
      evalDyn(second?.response?.body as Dyn<string>, new RequestScope({ config, request: requestInfo({ profile: "tok" }) }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).kind).toBe('evaluation');
    expect((error as GatewayError).detail).toMatch(/portico\.hcl:9,9-18: Error in function call; Call to function "jwt_sign" failed: jwt_sign: no jwt_signing_profile or jwt block with signing_ttl is labelled "tok"/);
  });
});
