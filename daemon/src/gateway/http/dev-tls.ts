/**
 * The self-signed certificate of `settings.https_dev_proxy`: one certificate for localhost,
 * 127.0.0.1, ::1 and every host name of the configuration. With a directory it is kept there
 * (`https-dev-proxy.crt` and `.key`, mode 0600) and reused across restarts while it is valid
 * and names every host; otherwise (or when it expired, or a host is new) a new one is made.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { GatewayConfig } from '../config/model.js';

export interface DevCredentials {
  readonly key: string;
  readonly cert: string;
}

export const DEV_CERT_FILE = 'https-dev-proxy.crt';
export const DEV_KEY_FILE = 'https-dev-proxy.key';

const VALID_DAYS = 365;
/** A certificate this close to its end is replaced rather than served until it expires mid-session. */
const RENEW_BEFORE_MS = 24 * 3600 * 1000;

/** localhost and its addresses, then the named hosts of every server (not `*`), without repeats. */
export function devCertificateNames(config: GatewayConfig): string[] {
  const names = new Set(['localhost', '127.0.0.1', '::1']);
  for (const server of config.servers) for (const { host } of server.hosts) if (host !== '*') names.add(host);
  return [...names];
}

export class DevCertificateStore {
  #current: (DevCredentials & { readonly x509: X509Certificate }) | null = null;

  /** `dir` null keeps the certificate in memory only (a new one per process). */
  constructor(
    private readonly dir: string | null,
    private readonly log: (message: string, fields?: Record<string, unknown>) => void = () => undefined,
  ) {}

  /** A certificate valid now that names every one of `names`: the one in use, the stored one, or a new one (stored). */
  async credentialsFor(names: readonly string[]): Promise<DevCredentials> {
    if (this.#current && covers(this.#current.x509, names)) return this.#current;
    const stored = await this.#read();
    if (stored && covers(stored.x509, names)) {
      this.#current = stored;
      return stored;
    }
    const made = await generateCertificate(names);
    await this.#write(made);
    this.#current = { ...made, x509: new X509Certificate(made.cert) };
    this.log('https_dev_proxy: generated a self-signed certificate', { names, valid_to: this.#current.x509.validTo, ...(this.dir ? { file: join(this.dir, DEV_CERT_FILE) } : {}) });
    return this.#current;
  }

  async #read(): Promise<(DevCredentials & { x509: X509Certificate }) | null> {
    if (!this.dir) return null;
    try {
      const [cert, key] = await Promise.all([readFile(join(this.dir, DEV_CERT_FILE), 'utf8'), readFile(join(this.dir, DEV_KEY_FILE), 'utf8')]);
      const x509 = new X509Certificate(cert);
      // A key from another certificate (a half-finished write, a hand edit) makes every handshake fail.
      if (!x509.checkPrivateKey(createPrivateKey(key))) return null;
      return { cert, key, x509 };
    } catch {
      // Missing or unreadable: a new one is made.
      return null;
    }
  }

  async #write(made: DevCredentials): Promise<void> {
    if (!this.dir) return;
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    for (const [file, content] of [
      [DEV_KEY_FILE, made.key],
      [DEV_CERT_FILE, made.cert],
    ] as const) {
      const path = join(this.dir, file);
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, content, { mode: 0o600 });
      // The mode of writeFile is filtered by the umask; the key must be 0600 whatever it is.
      await chmod(temporary, 0o600);
      await rename(temporary, path);
    }
  }
}

function covers(x509: X509Certificate, names: readonly string[]): boolean {
  const now = Date.now();
  if (Date.parse(x509.validFrom) > now || Date.parse(x509.validTo) - RENEW_BEFORE_MS < now) return false;
  return names.every((name) => (isIP(name) ? x509.checkIP(name) !== undefined : x509.checkHost(name, { wildcards: false }) !== undefined));
}

async function generateCertificate(names: readonly string[]): Promise<DevCredentials> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(notBeforeDate.getTime() + VALID_DAYS * 24 * 3600 * 1000);
  const pems = await generate([{ name: 'commonName', value: 'Portico https_dev_proxy' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: names.map((name) => (isIP(name) ? { type: 7 as const, ip: name } : { type: 2 as const, value: name })) },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
