import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterEach, describe, expect, it } from 'vitest';
import { DEV_CERT_FILE, DEV_KEY_FILE } from './dev-tls.js';
import { freePort, jsonRecords, send, startGateway } from './testing/test-gateway.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'portico-dev-tls-'));
  dirs.push(dir);
  return dir;
}

function config(plain: number, tls: number | null, hosts = ['*']): Record<string, string> {
  const list = hosts.map((h) => `"${h}:${plain}"`).join(', ');
  const proxy = tls === null ? '' : `  https_dev_proxy = ["${tls}:${plain}"]\n`;
  return { 'portico.hcl': `server {\n  hosts = [${list}]\n  endpoint "/hello" {\n    response { body = request.url }\n  }\n}\nsettings {\n  log_format = "json"\n${proxy}}\n` };
}

interface TlsReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** GET over TLS trusting only `ca` (the generated certificate), for `servername`. */
function getTls(port: number, path: string, ca: string, servername = 'localhost'): Promise<TlsReply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, servername, ca, agent: false, headers: { host: `${servername}:${port}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('settings.https_dev_proxy', () => {
  it('serves over TLS what the plain port serves, with a certificate kept 0600 in the data dir', async () => {
    const [plain, tls] = [await freePort(), await freePort()];
    const dir = dataDir();
    const gw = await startGateway(config(plain, tls), { devCertificateDir: dir });
    const cert = readFileSync(join(dir, DEV_CERT_FILE), 'utf8');
    expect(statSync(join(dir, DEV_CERT_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, DEV_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(new X509Certificate(cert).subjectAltName).toMatch(/DNS:localhost.*IP Address:127\.0\.0\.1/);

    const overTls = await getTls(tls, '/hello', cert);
    const overPlain = await send(`http://127.0.0.1:${plain}`, '/hello');
    expect(overTls.status).toBe(200);
    expect(JSON.parse(overTls.text)).toMatchObject({ endpoint: '/hello', url: `https://localhost:${tls}/hello` });
    expect(JSON.parse(overPlain.text)).toMatchObject({ endpoint: '/hello', url: `http://127.0.0.1:${plain}/hello` });
    expect(overTls.headers['gateway-request-id']).toMatch(/^[0-9a-v]{20}$/);
    expect((await getTls(tls, '/nothing', cert)).status).toBe(404);
    const records = jsonRecords(gw.lines).filter((r) => String(r.url).startsWith('https://'));
    expect(records.map((r) => (r.request as { tls: boolean }).tls)).toEqual([true, true]);
  });

  it('reuses the stored certificate on restart, and replaces it when it expired or misses a host name', async () => {
    const [plain, tls] = [await freePort(), await freePort()];
    const dir = dataDir();
    const first = await startGateway(config(plain, tls), { devCertificateDir: dir });
    const cert = readFileSync(join(dir, DEV_CERT_FILE), 'utf8');
    await first.server.stop();

    const again = await startGateway(config(plain, tls), { devCertificateDir: dir });
    expect(readFileSync(join(dir, DEV_CERT_FILE), 'utf8')).toBe(cert);
    expect((await getTls(tls, '/hello', cert)).status).toBe(200);
    await again.server.stop();

    const named = await startGateway(config(plain, tls, ['*', 'app.example.test']), { devCertificateDir: dir });
    const withName = readFileSync(join(dir, DEV_CERT_FILE), 'utf8');
    expect(withName).not.toBe(cert);
    expect((await getTls(tls, '/hello', withName, 'app.example.test')).status).toBe(200);
    await named.server.stop();

    const expired = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256', notBeforeDate: new Date(Date.now() - 10 * 86_400_000), notAfterDate: new Date(Date.now() - 86_400_000) });
    writeFileSync(join(dir, DEV_CERT_FILE), expired.cert);
    writeFileSync(join(dir, DEV_KEY_FILE), expired.private);
    await startGateway(config(plain, tls), { devCertificateDir: dir });
    const renewed = new X509Certificate(readFileSync(join(dir, DEV_CERT_FILE), 'utf8'));
    expect(Date.parse(renewed.validTo)).toBeGreaterThan(Date.now() + 300 * 86_400_000);
    expect(statSync(join(dir, DEV_KEY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('follows reloads: the TLS listener closes when the entry goes and opens when it comes back', async () => {
    const [plain, tls] = [await freePort(), await freePort()];
    const dir = dataDir();
    const gw = await startGateway(config(plain, tls), { devCertificateDir: dir });
    const cert = readFileSync(join(dir, DEV_CERT_FILE), 'utf8');
    await gw.server.apply(await gw.loadConfig(config(plain, null)));
    await expect(getTls(tls, '/hello', cert)).rejects.toThrow(/ECONNREFUSED/);
    expect((await send(`http://127.0.0.1:${plain}`, '/hello')).status).toBe(200);
    await gw.server.apply(await gw.loadConfig(config(plain, tls)));
    expect((await getTls(tls, '/hello', cert)).status).toBe(200);
  });
});
