import { timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import bcrypt from 'bcryptjs';

// apache-md5 is CommonJS whose typings claim an ES default export; require() gives the function either way.
const md5 = createRequire(import.meta.url)('apache-md5') as (password: string, salt?: string) => string;

export interface HtpasswdProblem {
  readonly line: number;
  readonly message: string;
}

/** The peer's line limit: longer lines are refused. */
const MAX_LINE = 255;

/**
 * An htpasswd file: `user:hash` lines, `#` comments and blank lines skipped. Only MD5-crypt
 * (`$1$`), apr1 and bcrypt hashes are accepted; problems name the line, never the hash.
 */
export function parseHtpasswd(text: string): { entries: Record<string, string>; problems: HtpasswdProblem[] } {
  const entries: Record<string, string> = {};
  const problems: HtpasswdProblem[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    const at = i + 1;
    if (line === '' || line.startsWith('#')) return;
    if (line.length > MAX_LINE) return void problems.push({ line: at, message: `line longer than ${MAX_LINE} characters` });
    const colon = line.indexOf(':');
    if (colon <= 0) return void problems.push({ line: at, message: 'not a "user:hash" line' });
    const user = line.slice(0, colon);
    const hash = line.slice(colon + 1);
    if (Object.hasOwn(entries, user)) return void problems.push({ line: at, message: `user ${JSON.stringify(user)} is listed twice` });
    const kind = hashKind(hash);
    if (kind === null) return void problems.push({ line: at, message: `the hash of user ${JSON.stringify(user)} is not supported (use apr1, md5 or bcrypt: htpasswd -m or -B, openssl passwd -apr1)` });
    if (kind !== 'bcrypt' && !/^\$(apr1|1)\$[^$]{1,8}\$[./0-9A-Za-z]{22}$/.test(hash)) return void problems.push({ line: at, message: `the ${kind} hash of user ${JSON.stringify(user)} is malformed` });
    // Defined, not assigned: a user named __proto__ is a user like any other.
    Object.defineProperty(entries, user, { value: hash, enumerable: true, writable: true, configurable: true });
  });
  return { entries, problems };
}

type HashKind = 'apr1' | 'md5' | 'bcrypt';

function hashKind(hash: string): HashKind | null {
  if (hash.startsWith('$apr1$')) return 'apr1';
  if (hash.startsWith('$1$')) return 'md5';
  if (/^\$2[aby]\$\d\d\$[./0-9A-Za-z]{53}$/.test(hash)) return 'bcrypt';
  return null;
}

/** Whether `password` matches the stored hash; the final comparison takes the same time wherever they differ. */
export function verifyPassword(hash: string, password: string): boolean {
  const kind = hashKind(hash);
  if (kind === null) return false;
  if (kind === 'bcrypt') {
    // htpasswd writes $2y$, the same algorithm as $2b$.
    return bcrypt.compareSync(password, hash.replace(/^\$2y\$/, '$2b$'));
  }
  const salt = hash.slice(0, hash.lastIndexOf('$') + 1);
  return sameText(md5(password, salt), hash);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
