import { describe, expect, it } from 'vitest';
import { rawExchange } from './testing/raw-socket.js';
import { jsonRecords, startGateway } from './testing/test-gateway.js';

const CONFIG = {
  'portico.hcl': 'server {\n  hosts = ["*:0"]\n  endpoint "/**" {\n    response { body = "ok" }\n  }\n}\nsettings {\n  log_format = "json"\n}\n',
};

describe('a request that names no host', () => {
  it('is taken as for the address it came in on, an IPv4 one as IPv4 on a dual-stack listener', async () => {
    // As the daemon listens for `*` hosts: on every address.
    const gw = await startGateway(CONFIG, { listenHost: '::' });
    const port = new URL(gw.url()).port;
    // HTTP/1.0 may leave out Host; the listener on every address ("*") is dual-stack.
    const reply = await rawExchange(gw.url(), 'GET /where?x=1 HTTP/1.0\r\n\r\n');
    expect(reply.status).toBe(200);
    await expect.poll(() => jsonRecords(gw.lines).filter((r) => r.type === 'gateway_access')).toHaveLength(1);
    expect(jsonRecords(gw.lines).find((r) => r.type === 'gateway_access')).toMatchObject({ url: `http://127.0.0.1:${port}/where?x=1`, request: { host: '127.0.0.1' } });
  });
});
