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

  it('reads request by attribute as it reads it whole, and sees a body, a grant and a permission given after a read', async () => {
    const config = await loadOk({
      'portico.hcl': 'server {\n endpoint "/" {\n response {\n json_body = [request.headers, request["method"], request.body, request.context, request.port, request.nothing, request.headers.nothing]\n }\n }\n endpoint "/whole" {\n response {\n json_body = request\n }\n }\n}\n',
    });
    const [parts, whole] = config.servers[0]?.endpoints ?? [];
    const scope = new RequestScope({ config, request: requestInfo({ 'x-a': '1', 'content-type': 'text/plain' }) });
    const before = evalDyn(parts?.response?.jsonBody as Dyn<JsonValue>, scope) as JsonValue[];
    expect(before).toEqual([{ 'x-a': '1', 'content-type': 'text/plain' }, 'POST', '', { beta_granted_permissions: [], beta_required_permission: '' }, 8080, null, null]);
    scope.setBody(Buffer.from('hello'));
    scope.grantAccess('key', { sub: 'me' }, ['read']);
    scope.setRequiredPermission('read');
    const after = evalDyn(parts?.response?.jsonBody as Dyn<JsonValue>, scope) as JsonValue[];
    expect(after.slice(2, 4)).toEqual(['hello', { key: { sub: 'me' }, beta_granted_permissions: ['read'], beta_required_permission: 'read' }]);
    const all = evalDyn(whole?.response?.jsonBody as Dyn<JsonValue>, scope) as Record<string, JsonValue>;
    expect(Object.keys(all)).toEqual(['id', 'method', 'headers', 'cookies', 'query', 'path_params', 'body', 'form_body', 'json_body', 'context', 'url', 'origin', 'protocol', 'host', 'port', 'path']);
    expect([all['headers'], all['method'], all['body'], all['context'], all['port']]).toEqual(after.slice(0, 5));
  });

  it('builds only the attributes an expression reads, and the request\'s functions only for an expression that calls one', async () => {
    const config = await loadOk({
      'portico.hcl': 'server {\n endpoint "/" {\n response {\n body = "${request.id} ${to_lower(request.method)}"\n }\n }\n endpoint "/h" {\n response {\n body = "${request.headers.x-a} ${unixtime() > 0}"\n }\n }\n}\n',
    });
    const [idOnly, withHeader] = config.servers[0]?.endpoints ?? [];
    const enumerated: string[] = [];
    const headers = new Proxy<Record<string, string>>({ 'x-a': 'one' }, {
      ownKeys(target) {
        enumerated.push('headers');
        return Reflect.ownKeys(target);
      },
    });
    class CountingScope extends RequestScope {
      functionReads = 0;
      override get functions() {
        this.functionReads += 1;
        return super.functions;
      }
    }
    const scope = new CountingScope({ config, request: requestInfo(headers) });
    expect(evalDyn(idOnly?.response?.body as Dyn<string>, scope)).toBe('req-1 post');
    expect(enumerated).toEqual([]);
    expect(scope.functionReads).toBe(0);
    expect(evalDyn(withHeader?.response?.body as Dyn<string>, scope)).toBe('one true');
    expect(enumerated).toEqual(['headers']);
    expect(scope.functionReads).toBe(1);
  });
});
