import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureGatewayTokenKey, TOKEN_KEY_FILE_NAME } from './token-key.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const dataDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-token-key-'));
  dirs.push(dir);
  return join(dir, 'data');
};

describe('the gateway token key file', () => {
  it('is made once (32 random bytes, base64url, mode 0600), kept on later starts, and leaves no draft behind', () => {
    const dir = dataDir();
    const file = ensureGatewayTokenKey(dir);
    expect(file).toBe(join(dir, TOKEN_KEY_FILE_NAME));
    const key = readFileSync(file, 'utf8');
    expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(ensureGatewayTokenKey(dir)).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe(key);
    expect(readdirSync(dir)).toEqual([TOKEN_KEY_FILE_NAME]);
  });

  it('keeps a key the operator placed, tightening a mode that lets others read it', () => {
    const dir = dataDir();
    ensureGatewayTokenKey(dir);
    const file = join(dir, TOKEN_KEY_FILE_NAME);
    writeFileSync(file, 'operator-key');
    chmodSync(file, 0o644);
    ensureGatewayTokenKey(dir);
    expect(readFileSync(file, 'utf8')).toBe('operator-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
