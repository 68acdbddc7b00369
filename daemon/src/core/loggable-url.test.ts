import { describe, expect, it } from 'vitest';
import { send, startGateway } from '../gateway/http/testing/test-gateway.js';
import { loggableUrl } from './loggable-url.js';

describe('secrets out of the log URL', () => {
  it('masks secret query values and user info, and leaves other URLs untouched', () => {
    expect(loggableUrl(new URL('http://u:p@h/x?key=s3cret&access_token=t0k&code=c0de&client_secret=cs&page=2'))).toBe('http://h/x?page=2&key=***&access_token=***&code=***&client_secret=***');
    const plain = new URL('http://h/a%2Fb?q=1&q=2');
    expect(loggableUrl(plain)).toBe(plain.href);
  });

  it('masks the access line URL like the backend line, in both formats', async () => {
    for (const format of ['json', 'common']) {
      const gw = await startGateway({ 'portico.hcl': `server {\n  hosts = ["*:0"]\n  endpoint "/r" {\n    response { body = "ok" }\n  }\n}\nsettings {\n  log_format = "${format}"\n}\n` });
      await send(gw.url(), '/r?key=s3cret-key&x=1&access_token=s3cret-token', { headers: { authorization: 'Bearer s3cret-bearer' } });
      const line = gw.lines.find((l) => l.includes('/r?')) ?? '';
      expect([format, line]).toEqual([format, expect.stringContaining('x=1')]);
      expect(line).toContain('key=***');
      expect(line).not.toMatch(/s3cret/);
    }
  });
});
