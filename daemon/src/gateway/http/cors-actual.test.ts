import { describe, expect, it } from 'vitest';
import { send, startGateway } from './testing/test-gateway.js';

const CONFIG = `
server {
  hosts = ["*:0"]
  cors {
    allowed_origins = "*"
  }
  endpoint "/open" {
    response { body = "open" }
  }
  api "private" {
    base_path = "/private"
    cors {
      allowed_origins = ["https://a.example.com", "https://b.example.com"]
      allow_credentials = true
    }
    endpoint "/x" {
      response { body = "x" }
    }
  }
  api "none" {
    base_path = "/none"
    cors {
      disable = true
    }
    endpoint "/x" {
      response { body = "x" }
    }
  }
  files {
    base_path = "/static"
    document_root = "htdocs"
  }
  files {
    base_path = "/quiet"
    document_root = "htdocs"
    cors {
      disable = true
    }
  }
  spa {
    base_path = "/app"
    bootstrap_file = "htdocs/a.txt"
    paths = ["/**"]
    cors {
      allowed_origins = "https://one.example.com"
    }
  }
  spa {
    base_path = "/quiet-app"
    bootstrap_file = "htdocs/a.txt"
    paths = ["/**"]
    cors {
      disable = true
    }
  }
}
`;

describe('CORS on actual requests', () => {
  it('sends * for every origin without credentials, inherited by files', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG, 'htdocs/a.txt': 'a' });
    const res = await send(gw.url(), '/open', { headers: { origin: 'https://any.example.com' } });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    const file = await send(gw.url(), '/static/a.txt', { headers: { origin: 'https://any.example.com' } });
    expect(file.headers['access-control-allow-origin']).toBe('*');
  });

  it('echoes an allowed origin with credentials and Vary: Origin in an api that overrides the server cors', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG, 'htdocs/a.txt': 'a' });
    const res = await send(gw.url(), '/private/x', { headers: { origin: 'https://b.example.com' } });
    expect(res.headers['access-control-allow-origin']).toBe('https://b.example.com');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers.vary).toContain('Origin');
    const other = await send(gw.url(), '/private/x', { headers: { origin: 'https://c.example.com' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers.vary).toContain('Origin');
  });

  it('sends nothing where cors is disabled', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG, 'htdocs/a.txt': 'a' });
    const res = await send(gw.url(), '/none/x', { headers: { origin: 'https://a.example.com' } });
    expect(res.text).toBe('x');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('files and spa blocks take their own cors: a single origin as a string, or disabled under the server cors', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG, 'htdocs/a.txt': 'a' });
    const origin = async (path: string, from: string) => {
      const res = await send(gw.url(), path, { headers: { origin: from } });
      return [res.status, res.text, res.headers['access-control-allow-origin'] ?? null];
    };
    expect(await origin('/quiet/a.txt', 'https://any.example.com')).toEqual([200, 'a', null]);
    expect(await origin('/app/some/view', 'https://one.example.com')).toEqual([200, 'a', 'https://one.example.com']);
    expect(await origin('/app/some/view', 'https://two.example.com')).toEqual([200, 'a', null]);
    expect(await origin('/quiet-app/view', 'https://any.example.com')).toEqual([200, 'a', null]);
  });
});
