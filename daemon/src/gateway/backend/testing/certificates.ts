import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** PEM file of the throwaway CA. */
  readonly caFile: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  dispose(): void;
}

/** A throwaway CA (openssl) and a server certificate for `names` (DNS names and IP addresses). */
export function makeCertificates(names: readonly string[] = ['localhost', '127.0.0.1']): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'portico-backend-tls-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Portico Backend Test CA');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${names[0] ?? 'localhost'}`);
  const san = names.map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`);
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf');
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { caFile: join(dir, 'ca.pem'), ca: read('ca.pem'), cert: read('server.pem'), key: read('server.key'), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
