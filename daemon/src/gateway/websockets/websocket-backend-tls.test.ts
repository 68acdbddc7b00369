import { afterAll, describe, expect, it } from 'vitest';
import { makeCertificates } from '../backend/testing/certificates.js';
import { connect, serverOn, startWsBackend, startWsGateway } from './testing/ws-fixture.js';

const tls = makeCertificates(['localhost']);
afterAll(() => tls.dispose());

describe('websockets to an https backend (wss)', () => {
  it("trusts the backend's ca_file", async () => {
    const backend = await startWsBackend({ tls });
    const gw = await startWsGateway({
      'portico.hcl': serverOn(`  endpoint "/**" {\n    proxy {\n      backend = "b"\n      websockets = true\n    }\n  }`, `  backend "b" {\n    origin = "${backend.origin}"\n    ca_file = "${tls.caFile}"\n  }`),
    });
    const client = await connect(gw.wsUrl('/echo'));
    client.socket.send('over tls');
    expect(await client.next()).toBe('over tls');
    expect(backend.upgrades).toHaveLength(1);
  });

  it('refuses a certificate it cannot verify (502), unless disable_certificate_validation is set', async () => {
    const backend = await startWsBackend({ tls });
    const gw = await startWsGateway({
      'portico.hcl': serverOn(
        `  endpoint "/strict/**" {\n    proxy {\n      backend = "strict"\n      url = "/**"\n      websockets = true\n    }\n  }\n  endpoint "/lax/**" {\n    proxy {\n      backend = "lax"\n      url = "/**"\n      websockets = true\n    }\n  }`,
        `  backend "strict" {\n    origin = "${backend.origin}"\n  }\n  backend "lax" {\n    origin = "${backend.origin}"\n    disable_certificate_validation = true\n  }`,
      ),
    });
    await expect(connect(gw.wsUrl('/strict/echo'))).rejects.toMatchObject({ status: 502 });
    expect(backend.upgrades).toHaveLength(0);
    const client = await connect(gw.wsUrl('/lax/echo'));
    client.socket.send('unverified');
    expect(await client.next()).toBe('unverified');
  });
});
