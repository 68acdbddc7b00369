import { createHash, timingSafeEqual } from 'node:crypto';
import type { BasicAuthConfig } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import { verifyPassword } from './htpasswd.js';
import type { AccessCheck, AccessGrant, AccessRequest } from './access-check.js';

/**
 * basic_auth: credentials from `Authorization: Basic`, checked against user/password when
 * the user name matches, else against the htpasswd file (the spec's precedence rule). A
 * configured empty password never matches. Failures carry the Basic challenge.
 */
export function basicAuth(config: BasicAuthConfig): AccessCheck {
  const challenge = { 'WWW-Authenticate': config.realm === '' ? 'Basic' : `Basic realm="${config.realm.replace(/["\\]/g, '\\$&')}"` };
  const fail = (kind: 'basic_auth' | 'basic_auth_credentials_missing', detail: string): GatewayError =>
    new GatewayError(kind, `basic_auth "${config.label}": ${detail}`, { headers: challenge, source: config.label });
  const expected = digest(config.password);
  return {
    label: config.label,
    kind: 'basic_auth',
    validate: async function basicAuthCheck(request: AccessRequest): Promise<AccessGrant> {
      const credentials = basicCredentials(request.headers['authorization']);
      if (credentials === null) throw fail('basic_auth_credentials_missing', 'missing credentials');
      const { user, password } = credentials;
      let ok: boolean;
      if (config.password !== '' && user === config.user) ok = timingSafeEqual(digest(password), expected);
      else {
        // Own entries only: `constructor` or `__proto__` are not in every file.
        ok = Object.hasOwn(config.htpasswd, user) && verifyPassword(config.htpasswd[user]!, password);
      }
      if (!ok) throw fail('basic_auth', `credentials for user ${JSON.stringify(user)} do not match`);
      return { context: { user }, permissions: [], user };
    },
  };
}

/** Equal-length digests, so the comparison time says nothing about the password's length. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function basicCredentials(header: string | readonly string[] | undefined): { user: string; password: string } | null {
  const value = typeof header === 'string' ? header.trim() : undefined;
  if (value === undefined || value.length < 6 || value.slice(0, 6).toLowerCase() !== 'basic ') return null;
  const decoded = Buffer.from(value.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
