import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

export interface TokenEndpointOptions {
  /** 0 (the default) takes a free port. */
  readonly port?: number;
  /** client_id to client_secret. */
  readonly clients: Readonly<Record<string, string>>;
  /** Lifetime of issued tokens in seconds; 3600 by default. */
  readonly expiresIn?: number;
  /** Every token answer waits this long, so concurrent callers overlap. */
  readonly tokenDelayMs?: number;
}

export interface RecordedTokenRequest {
  readonly authMethod: 'basic' | 'post' | 'none';
  readonly clientId: string | null;
  readonly grantType: string | null;
  readonly scope: string | null;
  readonly accept: string | null;
  readonly contentType: string | null;
  readonly body: string;
}

export interface RecordedResourceRequest {
  /** The request target, query included. */
  readonly path: string;
  readonly authorization: string | null;
}

export interface TokenEndpointHandle {
  readonly url: string;
  readonly tokenUrl: string;
  /** Every POST to /token, recorded when it arrives (before any delay). */
  readonly requests: RecordedTokenRequest[];
  /** Access tokens issued, in order. */
  readonly issued: string[];
  /** Makes every token issued so far invalid at the resource. */
  revokeAll(): void;
  /** Token requests answer this status and body until set back to null. */
  setFailure(status: number | null, body?: string): void;
  /** `<url>/resource/<path>`. */
  resourceUrl(path: string): string;
  readonly resourceRequests: RecordedResourceRequest[];
  close(): Promise<void>;
}

interface ClientCredentials {
  readonly authMethod: 'basic' | 'post' | 'none';
  readonly clientId: string | null;
  readonly clientSecret: string | null;
}

const BODY_LIMIT_BYTES = 64 * 1024;

/** Starts an OAuth2 token endpoint (client credentials grant, RFC 6749 §4.4) and a resource that accepts its tokens. */
export async function startTokenEndpoint(options: TokenEndpointOptions): Promise<TokenEndpointHandle> {
  const { port = 0, clients, expiresIn = 3600, tokenDelayMs = 0 } = options;
  const requests: RecordedTokenRequest[] = [];
  const resourceRequests: RecordedResourceRequest[] = [];
  const issued: string[] = [];
  const valid = new Map<string, number>();
  let failure: { status: number; body: string | undefined } | null = null;

  async function answerToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const form = new URLSearchParams(body);
    const credentials = clientCredentials(req.headers.authorization, form);
    const grantType = form.get('grant_type');
    const scope = form.get('scope');
    requests.push({ authMethod: credentials.authMethod, clientId: credentials.clientId, grantType, scope, accept: req.headers.accept ?? null, contentType: req.headers['content-type'] ?? null, body });
    if (tokenDelayMs > 0) await delay(tokenDelayMs);
    if (failure) return sendFailure(res, failure.status, failure.body);
    if (form.has('client_secret') && credentials.authMethod === 'basic') return sendJson(res, 400, { error: 'invalid_request', error_description: 'more than one client authentication method' });
    const secret = credentials.clientId !== null && Object.hasOwn(clients, credentials.clientId) ? clients[credentials.clientId] : undefined;
    if (secret === undefined || secret !== credentials.clientSecret) {
      const challenge: Record<string, string> = credentials.authMethod === 'basic' ? { 'www-authenticate': 'Basic realm="token"' } : {};
      return sendJson(res, 401, { error: 'invalid_client' }, challenge);
    }
    if (grantType !== 'client_credentials') return sendJson(res, 400, { error: 'unsupported_grant_type' });
    const token = randomBytes(32).toString('base64url');
    issued.push(token);
    valid.set(token, Date.now() + expiresIn * 1000);
    sendJson(res, 200, { access_token: token, token_type: 'Bearer', expires_in: expiresIn, ...(scope !== null ? { scope } : {}) });
  }

  function answerResource(req: IncomingMessage, res: ServerResponse): void {
    const authorization = req.headers.authorization ?? null;
    const path = req.url ?? '/';
    resourceRequests.push({ path, authorization });
    const token = /^bearer (\S+)$/i.exec(authorization ?? '')?.[1];
    const expiresAt = token === undefined ? undefined : valid.get(token);
    if (token === undefined || expiresAt === undefined || expiresAt <= Date.now()) {
      return sendJson(res, 401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
    }
    sendJson(res, 200, { path, token });
  }

  const server = createServer(function tokenEndpointServer(req, res) {
    const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (pathname === '/token' && req.method === 'POST') {
      answerToken(req, res).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 400, { error: 'invalid_request', error_description: error instanceof Error ? error.message : String(error) });
      });
    } else if (pathname === '/resource' || pathname.startsWith('/resource/')) {
      answerResource(req, res);
    } else {
      sendJson(res, 404, { error: 'not_found' });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    tokenUrl: `${url}/token`,
    requests,
    issued,
    revokeAll: () => valid.clear(),
    setFailure: (status, body) => {
      failure = status === null ? null : { status, body };
    },
    resourceUrl: (path) => `${url}/resource${path.startsWith('/') ? path : `/${path}`}`,
    resourceRequests,
    close: () => closeServer(server),
  };
}

/** Basic credentials are form-encoded before base64 (RFC 6749 §2.3.1), so `+` and `%XX` are decoded. */
function clientCredentials(authorization: string | undefined, form: URLSearchParams): ClientCredentials {
  const basic = /^basic (\S+)$/i.exec(authorization ?? '')?.[1];
  if (basic !== undefined) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { authMethod: 'basic', clientId: null, clientSecret: null };
    return { authMethod: 'basic', clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  }
  const clientSecret = form.get('client_secret');
  if (clientSecret !== null) return { authMethod: 'post', clientId: form.get('client_id'), clientSecret };
  return { authMethod: 'none', clientId: form.get('client_id'), clientSecret: null };
}

function formDecode(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

function sendFailure(res: ServerResponse, status: number, body: string | undefined): void {
  if (body === undefined) return sendJson(res, status, { error: 'server_error' });
  res.writeHead(status, { 'content-type': isJson(body) ? 'application/json' : 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT_BYTES) throw new Error('the request body is too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Keep-alive connections from fetch would hold close() open until they time out.
    server.closeAllConnections();
  });
}
