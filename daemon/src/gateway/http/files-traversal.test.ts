import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { send, startGateway } from './testing/test-gateway.js';

describe('files never serve outside document_root', () => {
  // Dot segments, backslashes and NUL are refused by the front (400) before routing; the rest by the files block (404).
  it.each([
    ['/static/../secret.txt', 400],
    ['/static/%2e%2e/secret.txt', 400],
    ['/static/%2E%2E%2Fsecret.txt', 400],
    ['/static/..%5csecret.txt', 400],
    ['/static/..\\secret.txt', 400],
    ['/static/a%00.txt', 400],
    ['/static/./../secret.txt', 400],
    ['/static/out/secret.txt', 404],
  ] as const)('refuses %s', async (path, status) => {
    const gw = await startGateway({
      'portico.hcl': 'server {\n  hosts = ["*:0"]\n  files {\n    base_path = "/static"\n    document_root = "htdocs"\n  }\n}\n',
      'secret.txt': 'TOP SECRET',
      'htdocs/a.txt': 'a',
    });
    symlinkSync(gw.dir, join(gw.dir, 'htdocs', 'out'));
    const res = await send(gw.url(), path);
    expect(res.status).toBe(status);
    expect(res.text).not.toContain('TOP SECRET');
    expect((await send(gw.url(), '/static/a.txt')).text).toBe('a');
  });

  it('follows a symlink that stays inside the root', async () => {
    const gw = await startGateway({
      'portico.hcl': 'server {\n  hosts = ["*:0"]\n  files {\n    document_root = "htdocs"\n  }\n}\n',
      'htdocs/real/a.txt': 'inside',
    });
    symlinkSync(join(gw.dir, 'htdocs', 'real'), join(gw.dir, 'htdocs', 'link'));
    expect((await send(gw.url(), '/link/a.txt')).text).toBe('inside');
  });
});
