import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';

describe('expected_status', () => {
  it('a status outside expected_status is an unexpected_status error (502); one inside passes', async () => {
    const backend = await startBackend((req, res) => {
      res.writeHead(Number(req.url?.slice(1)));
      res.end('from backend');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/{code}" {
    proxy {
      url = "${backend.origin}/\${request.path_params.code}"
      expected_status = [200, 404]
    }
  }
}
`);
    const ok = await send(gw.url('/'), '/404');
    expect(ok.status).toBe(404);
    expect(ok.text).toBe('from backend');
    const bad = await send(gw.url('/'), '/500');
    expect(bad.status).toBe(502);
    expect(bad.text).not.toContain('from backend');
    await expect.poll(() => gw.records.some((r) => r.type === 'gateway_access' && JSON.stringify(r).includes('unexpected_status'))).toBe(true);
  });
});
