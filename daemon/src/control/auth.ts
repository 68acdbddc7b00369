import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, openSync, readFileSync, statSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../core/logger.js';

export const TOKEN_FILE_NAME = 'control.token';

export interface ControlToken {
  token: string;
  /** Where it came from, safe to log. */
  source: 'env' | 'file' | 'created';
  file: string | null;
}

/**
 * The control API's bearer token: PORTICO_CONTROL_TOKEN when set, else `<dataDir>/control.token`,
 * created (mode 0600) with 32 random bytes the first time.
 */
export function loadControlToken(dataDir: string, envToken: string | undefined, logger: Logger): ControlToken {
  if (envToken !== undefined && envToken !== '') {
    if (envToken.length < 16) throw new Error('PORTICO_CONTROL_TOKEN is shorter than 16 characters; use a long random value');
    return { token: envToken, source: 'env', file: null };
  }
  const file = join(dataDir, TOKEN_FILE_NAME);
  mkdirSync(dataDir, { recursive: true });
  try {
    const fd = openSync(file, 'wx', 0o600);
    const token = randomBytes(32).toString('base64url');
    writeSync(fd, `${token}\n`);
    closeSync(fd);
    return { token, source: 'created', file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) logger.warn('control token file is readable by other users; run chmod 600 on it', { file, mode: mode.toString(8) });
  const token = readFileSync(file, 'utf8').trim();
  if (token.length < 16) throw new Error(`${file} holds no usable token (shorter than 16 characters); delete it to have a new one created`);
  return { token, source: 'file', file };
}

/** Constant-time comparison of a presented token with the expected one. */
export function tokenMatches(presented: string | null | undefined, expected: string): boolean {
  if (!presented) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
