import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The environment variable the default configuration reads the token key file from. */
export const TOKEN_KEY_ENV = 'PORTICO_GATEWAY_TOKEN_KEY';
export const TOKEN_KEY_FILE_NAME = 'gateway-token.key';

/**
 * The HS256 secret the default configuration signs and verifies tenant tokens with:
 * `<dataDir>/gateway-token.key`, created (mode 0600, 32 random bytes) the first time, and
 * tightened to 0600 when it is more open. Returns the file's path.
 */
export function ensureGatewayTokenKey(dataDir: string): string {
  const file = join(dataDir, TOKEN_KEY_FILE_NAME);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Written whole to a file of its own, then linked in place: a failed write (disk full) leaves
  // no empty key behind, and of two daemons starting at once the first link wins.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // No trailing newline: an HS key file is used byte for byte.
    writeFileSync(draft, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (statSync(file).mode & 0o077) chmodSync(file, 0o600);
  } finally {
    rmSync(draft, { force: true });
  }
  return file;
}

/**
 * The environment a gateway configuration is loaded with by the daemon and the CLI: the
 * process environment plus PORTICO_GATEWAY_TOKEN_KEY naming the data dir's token key,
 * unless the operator set it.
 */
export function gatewayEnvironment(env: NodeJS.ProcessEnv, dataDir: string): NodeJS.ProcessEnv {
  if (env[TOKEN_KEY_ENV]) return env;
  return { ...env, [TOKEN_KEY_ENV]: ensureGatewayTokenKey(dataDir) };
}

/** The data dir a CLI command uses: --data-dir, else PORTICO_DATA_DIR, else ./data (the daemon's rule). */
export function cliDataDir(env: NodeJS.ProcessEnv, flag?: string): string {
  return resolve(flag ?? (env.PORTICO_DATA_DIR || 'data'));
}
