// Modifiers in the contexts the other modifier tests leave out, through a running gateway:
// request headers, query and form params in proxy, backend and error_handler contexts (what the
// backend receives), response headers in server, api, endpoint, files, spa and error_handler
// contexts (what the client receives), and set_response_status beside an error handler's
// response block.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { tempFiles } from '../config/testing/config-files.js';
import { freePort, send } from '../http/testing/test-gateway.js';
import { startBackend, startEndpointGateway, type SeenRequest } from './testing/endpoint-gateway.js';

/** Echoes what it received, with headers for the response modifiers to remove or keep. */
function respond(req: SeenRequest, res: ServerResponse): void {
  const body = JSON.stringify(req);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-rm-server': '1', 'x-rm-api': '1', 'x-rm-endpoint': '1', 'x-rm-eh': '1', 'x-keep': '1' });
  res.end(body);
}

function siteDir(): string {
  return tempFiles({ 'static/a.txt': 'file a\n', 'app.html': '<!doctype html><title>app</title>\n' });
}

function config(origin: string, downPort: number, dir: string): string {
  return `
server {
  hosts = ["*:0"]
  remove_response_headers = ["x-rm-server"]
  add_response_headers    = { x-server-add = "server" }
  files {
    base_path               = "/static"
    document_root           = "${dir}/static"
    remove_response_headers = ["x-server-add"]
    set_response_headers    = { x-files = "set" }
    add_response_headers    = { x-files-add = "added" }
  }
  spa {
    base_path               = "/app"
    bootstrap_file          = "${dir}/app.html"
    paths                   = ["/**"]
    remove_response_headers = ["x-server-add"]
    set_response_headers    = { x-spa = "set" }
    add_response_headers    = { x-spa-add = "added" }
  }
  api {
    base_path               = "/api"
    remove_response_headers = ["x-rm-api"]
    endpoint "/q" {
      add_query_params        = { e = "endpoint" }
      set_form_params         = { f_set = "endpoint" }
      add_form_params         = { f_add = "endpoint" }
      remove_response_headers = ["x-rm-endpoint"]
      proxy {
        backend                = "b"
        remove_request_headers = ["x-drop-proxy"]
        remove_query_params    = ["rm_proxy"]
        set_query_params       = { p = "proxy" }
        remove_form_params     = ["rm_proxy"]
        add_form_params        = { f_add = "proxy" }
      }
    }
    endpoint "/down" {
      proxy {
        backend = "down"
      }
      error_handler "backend" {
        remove_request_headers  = ["x-drop-eh"]
        set_request_headers     = { x-eh = "set" }
        add_request_headers     = { x-eh-add = "added" }
        remove_query_params     = ["rm_eh"]
        set_query_params        = { eh = "set" }
        add_query_params        = { eh_add = "added" }
        remove_form_params      = ["rm_eh"]
        set_form_params         = { f_eh = "set" }
        add_form_params         = { f_eh_add = "added" }
        remove_response_headers = ["x-rm-eh"]
        proxy {
          backend = "b"
        }
      }
    }
    endpoint "/status" {
      proxy {
        backend = "down"
      }
      error_handler "backend" {
        set_response_status = 503
        response {
          status = 200
          body   = "handled"
        }
      }
    }
  }
}
definitions {
  backend "b" {
    origin              = "${origin}"
    add_request_headers = { x-be-add = "backend" }
    remove_query_params = ["rm_backend"]
    add_query_params    = { be = "backend" }
    remove_form_params  = ["rm_backend"]
    set_form_params     = { f_be = "backend" }
  }
  backend "down" {
    origin = "http://127.0.0.1:${downPort}"
  }
}
`;
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const RESPONSE_HEADERS = ['x-rm-server', 'x-rm-api', 'x-rm-endpoint', 'x-rm-eh', 'x-keep', 'x-server-add'];

/** The headers of `names` that are present. */
function pick(headers: Readonly<Record<string, string | string[] | undefined>>, names: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const n of names) if (headers[n] !== undefined) out[n] = headers[n];
  return out;
}

describe('modifiers in every context', () => {
  it('apply where they are written', async () => {
    const backend = await startBackend(respond);
    const gw = await startEndpointGateway(config(backend.origin, await freePort(), siteDir()));

    const q = await send(gw.url('/'), '/api/q?keep=1&rm_proxy=1&rm_backend=1&p=client', {
      method: 'POST',
      headers: { ...FORM, 'x-drop-proxy': 'd', 'x-keep-h': 'k' },
      body: 'keep=1&rm_proxy=1&rm_backend=1&f_add=client',
    });
    const seenQ = JSON.parse(q.text) as SeenRequest;
    // Request side: endpoint, proxy, backend.
    expect(seenQ.url).toBe('/api/q?keep=1&e=endpoint&p=proxy&be=backend');
    expect([seenQ.headers['x-drop-proxy'], seenQ.headers['x-keep-h'], seenQ.headers['x-be-add']]).toEqual([undefined, 'k', 'backend']);
    expect(seenQ.body).toBe('keep=1&f_add=client&f_set=endpoint&f_add=endpoint&f_add=proxy&f_be=backend');
    // Response side: server, api, endpoint remove their own; the error handler's does not apply.
    expect(pick(q.headers, RESPONSE_HEADERS)).toEqual({ 'x-rm-eh': '1', 'x-keep': '1', 'x-server-add': 'server' });

    const down = await send(gw.url('/'), '/api/down?keep=1&rm_eh=1', {
      method: 'POST',
      headers: { ...FORM, 'x-drop-eh': 'd', 'x-eh-add': 'client' },
      body: 'keep=1&rm_eh=1',
    });
    expect(down.status).toBe(200);
    const seenDown = JSON.parse(down.text) as SeenRequest;
    // The error handler's request modifiers, then its proxy's backend's.
    expect(seenDown.url).toBe('/api/down?keep=1&eh=set&eh_add=added&be=backend');
    expect(pick(seenDown.headers, ['x-drop-eh', 'x-eh', 'x-eh-add', 'x-be-add'])).toEqual({ 'x-eh': 'set', 'x-eh-add': 'client, added', 'x-be-add': 'backend' });
    expect(seenDown.body).toBe('keep=1&f_eh=set&f_eh_add=added&f_be=backend');
    // Server, api and the handler remove theirs; the endpoint's context is not the answer's.
    expect(pick(down.headers, RESPONSE_HEADERS)).toEqual({ 'x-rm-endpoint': '1', 'x-keep': '1', 'x-server-add': 'server' });

    // An error handler's set_response_status wins over its response block's status.
    const status = await send(gw.url('/'), '/api/status');
    expect([status.status, status.text]).toEqual([503, 'handled']);

    // files and spa apply after the server: they remove what it added, and set and add their own.
    const file = await send(gw.url('/'), '/static/a.txt');
    expect([file.status, file.text]).toEqual([200, 'file a\n']);
    expect(pick(file.headers, ['x-server-add', 'x-files', 'x-files-add'])).toEqual({ 'x-files': 'set', 'x-files-add': 'added' });
    const spa = await send(gw.url('/'), '/app/some/route');
    expect([spa.status, spa.text]).toEqual([200, '<!doctype html><title>app</title>\n']);
    expect(pick(spa.headers, ['x-server-add', 'x-spa', 'x-spa-add'])).toEqual({ 'x-spa': 'set', 'x-spa-add': 'added' });
  });
});
