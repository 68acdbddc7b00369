import { describe, expect, it } from 'vitest';
import { accessLines, basic, startAccessGateway, type AccessGateway } from './testing/access-gateway.js';

/** `/p` behind basic_auth "ba" (ops / s3cret) whose custom_log_fields are `controlFields`; `endpointFields` are the endpoint's own. */
function gateway(controlFields: string, endpointFields = ''): Promise<AccessGateway> {
  return startAccessGateway({
    'portico.hcl': `server {
  hosts = ["*:0"]
  endpoint "/p" {
    access_control = ["ba"]
    ${endpointFields}
    response {
      body = "ok"
    }
  }
}
definitions {
  basic_auth "ba" {
    user = "ops"
    password = "s3cret"
    custom_log_fields = ${controlFields}
  }
}
`,
  });
}

describe('custom_log_fields of access controls', () => {
  it('adds a control\'s fields to the access line when it passes (reading its request.context) and when it refuses, with the block\'s own fields winning', async () => {
    const gw = await gateway('{\n      who   = request.context.ba.user\n      where = "basic_auth"\n      via   = "ba"\n    }', 'custom_log_fields = { where = "endpoint" }');
    expect((await fetch(gw.url('/p'), { headers: { authorization: basic('ops', 's3cret') } })).status).toBe(200);
    expect(accessLines(gw).at(-1)?.['custom']).toEqual({ who: 'ops', via: 'ba', where: 'endpoint' });
    expect((await fetch(gw.url('/p'), { headers: { authorization: basic('ops', 'wrong') } })).status).toBe(401);
    // Refused: no request.context.ba yet, so `who` is null; the fields are still logged.
    expect(accessLines(gw).at(-1)?.['custom']).toEqual({ who: null, via: 'ba', where: 'endpoint' });
  });

  it("a control's fields that fail to evaluate log an error record with the request's uid, as a block's do; the request is not affected", async () => {
    const gw = await gateway('{ n = to_number(request.headers.x-n) }');
    const res = await fetch(gw.url('/p'), { headers: { authorization: basic('ops', 's3cret'), 'x-n': 'not a number' } });
    expect(res.status).toBe(200);
    const uid = res.headers.get('gateway-request-id');
    expect(uid).toBeTruthy();
    const errors = gw.records.filter((r) => r.type === 'gateway_daemon');
    expect(errors.map((r) => [r.level, r['uid'], String(r['message']).replace(/:.*$/, '')])).toEqual([['error', uid, 'custom_log_fields of access control "ba"']]);
    expect(accessLines(gw).find((r) => r['uid'] === uid)).toMatchObject({ status: 200 });
    expect(gw.warnings).toEqual([]);
  });
});
