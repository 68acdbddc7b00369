import { execFileSync } from 'node:child_process';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { parseHtpasswd, verifyPassword } from './htpasswd.js';

const openssl = (...args: string[]): string => execFileSync('openssl', ['passwd', ...args], { encoding: 'utf8' }).trim();

describe('htpasswd', () => {
  it('verifies apr1 and md5-crypt hashes made by openssl and bcrypt ($2y$ as htpasswd writes it)', () => {
    const apr1 = openssl('-apr1', 'pw-one');
    const md5 = openssl('-1', 'pw-two');
    const bcryptY = bcrypt.hashSync('pw-three', 4).replace(/^\$2b\$/, '$2y$');
    expect([verifyPassword(apr1, 'pw-one'), verifyPassword(apr1, 'pw-One'), verifyPassword(md5, 'pw-two'), verifyPassword(md5, ''), verifyPassword(bcryptY, 'pw-three'), verifyPassword(bcryptY, 'pw-four')]).toEqual([true, false, true, false, true, false]);
    expect(verifyPassword('{SHA}qvTGHdzF6KLavt4PO0gs2a6pQ00=', 'hello')).toBe(false);
  });

  it('reports malformed lines, duplicates and unsupported hashes by line, never the hash', () => {
    const text = `# comment\n\nalice:${openssl('-apr1', 'a')}\nno-colon-here\nalice:${openssl('-1', 'b')}\ncarol:{SHA}qvTGHdzF6KLavt4PO0gs2a6pQ00=\ndave:$apr1$short\n${'x'.repeat(300)}:y\n`;
    const { entries, problems } = parseHtpasswd(text);
    expect(Object.keys(entries)).toEqual(['alice']);
    expect(problems.map((p) => p.line)).toEqual([4, 5, 6, 7, 8]);
    expect(problems.map((p) => p.message).join('\n')).not.toContain('qvTGHdzF6KLavt4PO0gs2a6pQ00');
    expect(problems[1]?.message).toBe('user "alice" is listed twice');
  });
  it('keeps a user named like a property of every object as its own entry', () => {
    const hash = openssl('-apr1', 'proto-pw');
    const { entries, problems } = parseHtpasswd(`__proto__:${hash}\nconstructor:${hash}\n`);
    expect(problems).toEqual([]);
    expect(Object.keys(entries)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(entries)).toBe(Object.prototype);
    expect(verifyPassword(entries['__proto__']!, 'proto-pw')).toBe(true);
  });
});
