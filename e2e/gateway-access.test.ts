import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { exportJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPortico, startDaemon, type DaemonHandle } from './harness.js';

const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
const lastLine = (text: string): string => text.trimEnd().split('\n').at(-1) ?? '';

describe('the default config guards the ingest API with tenant tokens', () => {
  let daemon: DaemonHandle;
  const token = async (tenant: string, workspace: string, extra: string[] = []): Promise<string> => {
    const made = await runPortico(['token', 'create', '--tenant', tenant, '--workspace', workspace, '--data-dir', daemon.dataDir, ...extra]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(`token for tenant "${tenant}", workspace "${workspace}"`);
    return lastLine(made.stdout);
  };
  const gateway = (path: string, init?: RequestInit): Promise<Response> => fetch(`${daemon.gatewayUrl}${path}`, init);

  beforeAll(async () => {
    daemon = await startDaemon();
  });
  afterAll(async () => {
    await daemon?.dispose();
  });

  it('keeps the token key in the data dir, readable by its owner only', () => {
    expect(statSync(join(daemon.dataDir, 'gateway-token.key')).mode & 0o777).toBe(0o600);
  });

  it('refuses client-sent tenant headers without a token, and takes the tenant from the token', async () => {
    const spoofed = await gateway('/api/v1/ingest-jobs', { headers: { 'X-Tenant-Id': 'acme', 'X-Workspace-Id': 'main' } });
    expect(spoofed.status).toBe(401);
    expect(spoofed.headers.get('www-authenticate')).toBe('Bearer');
    expect(await spoofed.json()).toMatchObject({ error: { status: 401, message: 'access control error' } });

    const acme = bearer(await token('acme', 'main'));
    const evil = bearer(await token('evil', 'main'));
    // acme creates a dataset while claiming to be evil in the headers: the token wins.
    const created = await gateway('/api/v1/datasets', { method: 'POST', headers: { ...acme, 'X-Tenant-Id': 'evil', 'x-workspace-id': 'other', 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'acme-data' }) });
    expect(created.status).toBe(201);
    const dataset = (await created.json()) as { dataset_id: string };
    expect((await gateway(`/api/v1/datasets/${dataset.dataset_id}`, { headers: acme })).status).toBe(200);
    expect((await gateway(`/api/v1/datasets/${dataset.dataset_id}`, { headers: evil })).status).toBe(404);
    // The same dataset seen directly on the services listener, as the tenant the token named.
    const direct = await fetch(`${daemon.servicesUrl}/api/v1/datasets/${dataset.dataset_id}`, { headers: { 'X-Tenant-Id': 'acme', 'X-Workspace-Id': 'main' } });
    expect(direct.status).toBe(200);
  });

  it('refuses expired and forged tokens', async () => {
    const expired = await token('acme', 'main', ['--ttl', '1s']);
    await new Promise((r) => setTimeout(r, 2500));
    const late = await gateway('/api/v1/ingest-jobs', { headers: bearer(expired) });
    expect([late.status, late.headers.get('www-authenticate')]).toEqual([401, 'Bearer error="invalid_token"']);
    const forged = await new SignJWT({ tenant: 'acme', workspace: 'main' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode('guessed-secret'));
    expect((await gateway('/api/v1/ingest-jobs', { headers: bearer(forged) })).status).toBe(401);
    expect(daemon.logs()).not.toContain(forged);
  });
});

describe('access controls through the daemon on a config of their own', () => {
  let daemon: DaemonHandle;
  let dir: string;
  let jwks: Server;
  let keys: object[];
  let jwksRequests = 0;
  const rsa1 = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const rsa2 = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sign = (key: KeyObject, kid: string, claims: Record<string, unknown>): Promise<string> => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).setExpirationTime('5m').sign(key);
  const gateway = (path: string, init?: RequestInit): Promise<Response> => fetch(`${daemon.gatewayUrl}${path}`, init);

  beforeAll(async () => {
    keys = [{ ...(await exportJWK(rsa1.publicKey)), kid: 'one', alg: 'RS256', use: 'sig' }];
    jwks = createServer((_req, res) => {
      jwksRequests += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
    dir = mkdtempSync(join(tmpdir(), 'portico-e2e-access-'));
    const apr1 = execFileSync('openssl', ['passwd', '-apr1', 'ops-pw'], { encoding: 'utf8' }).trim();
    writeFileSync(join(dir, 'users.htpasswd'), `ops:${apr1}\nauditor:${bcrypt.hashSync('audit-pw', 6).replace('$2b$', '$2y$')}\n`);
    writeFileSync(
      join(dir, 'gateway.hcl'),
      `
server {
  hosts = ["*:\${env.PORTICO_GATEWAY_PORT}"]
  endpoint "/ops" {
    access_control = ["ops"]
    response { body = "hello \${request.context.ops.user}" }
  }
  api {
    base_path = "/api"
    access_control = ["idp"]
    endpoint "/me" {
      beta_required_permission = ""
      response { json_body = request.context.idp }
    }
    endpoint "/reports" {
      beta_required_permission = { GET = "reports:read", POST = "reports:write" }
      response { body = "reports for \${request.context.idp.sub}" }
    }
  }
  endpoint "/session" {
    access_control = ["ops"]
    response { body = jwt_sign("session", { sub = request.context.ops.user }) }
  }
}
definitions {
  basic_auth "ops" {
    htpasswd_file = "users.htpasswd"
    realm = "operators"
  }
  jwt "idp" {
    jwks_url = "${jwksUrl}"
    beta_roles_claim = "roles"
    beta_roles_map = { analyst = ["reports:read"], admin = ["reports:read", "reports:write"] }
  }
  jwt_signing_profile "session" {
    signature_algorithm = "HS256"
    key = "a-session-signing-secret-of-some-length"
    ttl = "15m"
  }
}
`,
    );
    daemon = await startDaemon({ args: ['-f', join(dir, 'gateway.hcl')] });
  });
  afterAll(async () => {
    await daemon?.dispose();
    jwks?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('checks htpasswd users made by openssl and bcrypt, with the realm challenge', async () => {
    const basic = (user: string, pw: string): Record<string, string> => ({ Authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}` });
    const denied = await gateway('/ops');
    expect([denied.status, denied.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="operators"']);
    expect(await (await gateway('/ops', { headers: basic('ops', 'ops-pw') })).text()).toBe('hello ops');
    expect(await (await gateway('/ops', { headers: basic('auditor', 'audit-pw') })).text()).toBe('hello auditor');
    expect((await gateway('/ops', { headers: basic('ops', 'audit-pw') })).status).toBe(401);
    const session = await (await gateway('/session', { headers: basic('ops', 'ops-pw') })).text();
    expect(JSON.parse(Buffer.from(session.split('.')[1] ?? '', 'base64url').toString())).toMatchObject({ sub: 'ops' });
    expect(daemon.logs()).not.toContain('ops-pw');
  });

  it('verifies tokens with the key set, follows a key rotation, and enforces permissions from roles', async () => {
    const analyst = await sign(rsa1.privateKey, 'one', { sub: 'ana', roles: ['analyst'] });
    const me = await gateway('/api/me', { headers: bearer(analyst) });
    expect(me.status).toBe(200);
    expect(me.headers.get('cache-control')).toBe('private');
    expect(await me.json()).toMatchObject({ sub: 'ana', roles: ['analyst'] });
    expect(await (await gateway('/api/reports', { headers: bearer(analyst) })).text()).toBe('reports for ana');
    const write = await gateway('/api/reports', { method: 'POST', headers: bearer(analyst) });
    expect(write.status).toBe(403);
    expect((await gateway('/api/reports', { method: 'DELETE', headers: bearer(analyst) })).status).toBe(405);
    const before = jwksRequests;
    expect(before).toBe(1);

    keys = [{ ...(await exportJWK(rsa2.publicKey)), kid: 'two', alg: 'RS256', use: 'sig' }];
    const admin = await sign(rsa2.privateKey, 'two', { sub: 'root', roles: 'admin' });
    expect((await gateway('/api/reports', { method: 'POST', headers: bearer(admin) })).status).toBe(200);
    expect(jwksRequests).toBe(before + 1);
    // The old key left the set: its tokens are refused now (and within the cooldown no refetch happens).
    expect((await gateway('/api/me', { headers: bearer(analyst) })).status).toBe(401);
    expect(jwksRequests).toBe(before + 1);
  });

  it('config check refuses a config that names an undefined access control, at its position', async () => {
    const bad = join(dir, 'bad.hcl');
    writeFileSync(bad, 'server {\n  endpoint "/x" {\n    access_control = ["nobody"]\n    response { body = "open" }\n  }\n}\n');
    const checked = await runPortico(['config', 'check', bad], { env: { PORTICO_DATA_DIR: daemon.dataDir } });
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(/bad\.hcl:3,23-31: Undefined access control; The access control "nobody" is not defined in definitions/);
  });
});
