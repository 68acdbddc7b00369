import { describe, expect, it } from 'vitest';
import { send, startGateway } from './testing/test-gateway.js';

const server = `
server {
  hosts = ["*:0"]
  endpoint "/login" {
    response {
      body = "ok"
      headers = { set-cookie = ["session=abc; Secure; HttpOnly; Path=/", "theme=dark; secure", "plain=1"] }
    }
  }
}
`;

describe('secure_cookies', () => {
  it('"strip" removes the Secure flag from every Set-Cookie and keeps the rest', async () => {
    const gw = await startGateway({ 'portico.hcl': `${server}settings {\n  secure_cookies = "strip"\n}\n` });
    const res = await send(gw.url(), '/login');
    expect(res.headers['set-cookie']).toEqual(['session=abc; HttpOnly; Path=/', 'theme=dark', 'plain=1']);
  });

  it('leaves cookies alone by default', async () => {
    const gw = await startGateway({ 'portico.hcl': server });
    const res = await send(gw.url(), '/login');
    expect(res.headers['set-cookie']).toEqual(['session=abc; Secure; HttpOnly; Path=/', 'theme=dark; secure', 'plain=1']);
  });
});
