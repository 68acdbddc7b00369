import { describe, expect, it } from 'vitest';
import { send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';

describe('error_handler', () => {
  it('the most specific handler wins; the endpoint\\u2019s handlers win over the api\\u2019s; the api\\u2019s catch the rest', async () => {
    const notify = await startBackend((_req, res) => {
      res.end('noted');
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  api {
    error_handler "backend" {
      response {
        status = 599
        body = "api backend"
      }
    }
    endpoint "/down" {
      proxy { url = "http://127.0.0.1:1/" }
      error_handler {
        response { body = "endpoint star" }
      }
      error_handler "backend" {
        set_response_headers = { x-handled = "endpoint" }
        request "notify" { url = "${notify.origin}/notify" }
        response {
          status = 503
          body = "endpoint backend: \${backend_responses.notify.body}"
        }
      }
    }
    endpoint "/api-level" {
      proxy { url = "http://127.0.0.1:1/" }
    }
    endpoint "/status" {
      proxy {
        url = "${notify.origin}/"
        expected_status = [418]
      }
    }
  }
}
`);
    const down = await send(gw.url('/'), '/down');
    expect(down.status).toBe(503);
    expect(down.text).toBe('endpoint backend: noted');
    expect(down.headers['x-handled']).toBe('endpoint');
    const apiLevel = await send(gw.url('/'), '/api-level');
    expect(apiLevel.status).toBe(599);
    expect(apiLevel.text).toBe('api backend');
    // unexpected_status is an endpoint error: the api handles only backend errors, so the error is rendered.
    const status = await send(gw.url('/'), '/status');
    expect(status.status).toBe(502);
    await expect.poll(() => gw.records.filter((r) => r.type === 'gateway_access').map((r) => r['handler'])).toContain('error_handler:backend');
  });

  it('an error inside a handler goes to its nested handlers', async () => {
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/nested" {
    proxy { url = "http://127.0.0.1:1/" }
    error_handler {
      proxy { url = "http://127.0.0.1:1/again" }
      error_handler "backend" {
        response {
          status = 504
          body = "nested"
        }
      }
    }
  }
}
`);
    const res = await send(gw.url('/'), '/nested');
    expect(res.status).toBe(504);
    expect(res.text).toBe('nested');
  });
});
