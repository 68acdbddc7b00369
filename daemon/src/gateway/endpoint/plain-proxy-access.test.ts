// A plain proxy route guarded by jwt or basic_auth controls is compiled into the plain proxy
// handler, which runs the controls itself. It must answer, log and count exactly as the general
// path does: the same route under an api with an (unrelated) error handler that reads the
// proxy's exchange takes the general path, and both see the same requests.
import { describe, expect, it } from 'vitest';
import { accessLines, basic, startAccessGateway } from '../access/testing/access-gateway.js';
import { startBackend } from './testing/endpoint-gateway.js';
import { backendAndJwt, compilesPlain, plainAndGeneralServer, tokToken } from './testing/guarded-backend.js';


/** `/plain/**` compiles plain; `/general/**` is the same route inside an api whose error handler forces the general path. */
function config(origin: string, controls = 'access_control = ["tok", "pw"]'): string {
  return `
${plainAndGeneralServer(controls)}
definitions {
${backendAndJwt(origin, 'header = "X-Token"')}
  basic_auth "pw" {
    user = "ada"
    password = "lovelace"
  }
}
`;
}

describe('a plain proxy route behind jwt and basic_auth', () => {
  it('compiles to the plain handler only when its controls are jwt or basic_auth whose error handlers read no proxy exchange', async () => {
    const compiled = (hcl: string, path: string): Promise<boolean> => compilesPlain(hcl, path);
    const hcl = config('http://127.0.0.1:9');
    expect(await compiled(hcl, '/plain/**')).toBe(true);
    expect(await compiled(hcl, '/**')).toBe(false);
    const handled = (status: string) => hcl.replace('basic_auth "pw" {', `basic_auth "pw" {\n    error_handler "basic_auth" {\n      response {\n        status = ${status}\n      }\n    }`);
    expect(await compiled(handled('418'), '/plain/**')).toBe(true);
    expect(await compiled(handled('backend_responses.default.status'), '/plain/**')).toBe(false);
    expect(await compiled(handled('length(backend_requests)'), '/plain/**')).toBe(false);
  });

  it('refuses, forwards, logs and counts as the general path', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': config(backend.origin) });
    const good = await tokToken({ sub: 'ada' });
    const cases: [string, Record<string, string>][] = [
      ['nothing', {}],
      ['jwt only', { 'x-token': good }],
      ['wrong password', { 'x-token': good, authorization: basic('ada', 'nope') }],
      ['bad token', { 'x-token': `${good}x`, authorization: basic('ada', 'lovelace') }],
      ['both', { 'x-token': good, authorization: basic('ada', 'lovelace'), 'cache-control': 'no-cache' }],
    ];
    const seen = (prefix: string) => async ([, headers]: [string, Record<string, string>]) => {
      const res = await fetch(gw.url(`${prefix}/x?q=1`), { headers });
      const body = await res.text();
      return { status: res.status, challenge: res.headers.get('www-authenticate'), cacheControl: res.headers.get('cache-control'), body: res.status === 200 ? String(JSON.parse(body).url).replace(prefix, '<route>') : body.length > 0 };
    };
    const plain = await Promise.all(cases.map(seen('/plain')));
    const general = await Promise.all(cases.map(seen('/general')));
    expect(plain).toEqual(general);
    expect(plain.map((r) => r.status)).toEqual([401, 401, 401, 401, 200]);
    expect(plain[4]).toMatchObject({ cacheControl: 'private', body: '<route>/x?q=1' });
    // The backend never saw a refused request, nor the client's credentials.
    expect(backend.seen).toHaveLength(2);
    expect(backend.seen.every((r) => r.headers.authorization === undefined)).toBe(true);

    const lines = accessLines(gw);
    const fields = (prefix: string) =>
      lines.filter((l) => String(l['url']).includes(prefix)).map((l) => [l['status'], l['error_type'] ?? null, l['auth_user'] ?? null, l['handler']]);
    expect(fields('/plain/')).toHaveLength(5);
    expect(fields('/plain/').sort()).toEqual(fields('/general/').sort());
    const denials = (prefix: string) => gw.denials.filter((d) => d.path.startsWith(prefix)).map((d) => `${d.type} ${d.label}`).sort();
    expect(denials('/plain')).toEqual(['basic_auth pw', 'basic_auth_credentials_missing pw', 'jwt_token_invalid tok', 'jwt_token_missing tok'].sort());
    expect(denials('/plain')).toEqual(denials('/general'));
  });
});
