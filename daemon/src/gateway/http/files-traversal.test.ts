import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { send, startGateway } from './test-gateway.js';

describe('files never serve outside document_root', () => {
  it.each([
    '/static/../secret.txt',
    '/static/%2e%2e/secret.txt',
    '/static/%2E%2E%2Fsecret.txt',
    '/static/..%5csecret.txt',
    '/static/..\\secret.txt',
    '/static/a%00.txt',
    '/static/./../secret.txt',
    '/static/out/secret.txt',
  ])('refuses %s', async (path) => {
    const gw = await startGateway({
      'portico.hcl': 'server {\n  hosts = ["*:0"]\n  files {\n    base_path = "/static"\n    document_root = "htdocs"\n  }\n}\n',
      'secret.txt': 'TOP SECRET',
      'htdocs/a.txt': 'a',
    });
    symlinkSync(gw.dir, join(gw.dir, 'htdocs', 'out'));
    const res = await send(gw.url(), path);
    expect(res.status).toBe(404);
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
