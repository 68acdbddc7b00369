import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';

export interface OidcClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUris: readonly string[];
  readonly tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post';
}

export interface OidcAccount {
  readonly password: string;
  /** Released for the granted scopes: `email`/`email_verified` with `email`, every other claim with `profile`; `sub` is the username. */
  readonly claims: Readonly<Record<string, unknown>>;
}

export interface OidcProviderOptions {
  /** 0 (the default) takes a free port. */
  readonly port?: number;
  readonly clients: readonly OidcClient[];
  /** Keyed by username, which is also the account's `sub`. */
  readonly accounts: Readonly<Record<string, OidcAccount>>;
  readonly idTokenTtlSeconds?: number;
  readonly accessTokenTtlSeconds?: number;
  readonly signingAlg?: 'RS256' | 'ES256';
  /** False: the discovery document lists no `code_challenge_methods_supported`, as providers without PKCE do. */
  readonly advertisesPkce?: boolean;
  /** Scopes the user does not consent to: left out of every grant, so the token response names fewer scopes than were asked for. */
  readonly withheldScopes?: readonly string[];
}

export interface RecordedOidcRequest {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  /** How the client authenticated: an `Authorization: Basic` header, `client_secret` in the body, or neither. */
  readonly authMethod: 'basic' | 'post' | 'none';
  /** The form's `grant_type` (token requests), else null. */
  readonly grantType: string | null;
  /** Epoch milliseconds when the request arrived. */
  readonly at: number;
}

export interface AuthorizeParams {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  readonly state?: string;
  readonly nonce?: string;
  readonly codeChallenge?: string;
  readonly codeChallengeMethod?: string;
  readonly username: string;
  readonly password: string;
}

export interface AuthorizeResult {
  readonly code: string;
  readonly state: string | null;
  /** The final redirect to the client's redirect_uri, not followed. */
  readonly redirect: string;
}

export interface OidcProviderHandle {
  /** `http://127.0.0.1:<port>`, also the base of every endpoint. */
  readonly issuer: string;
  readonly url: string;
  readonly discoveryUrl: string;
  readonly jwksUrl: string;
  readonly tokenUrl: string;
  readonly userinfoUrl: string;
  readonly authorizationUrl: string;
  /** Every request received, in arrival order, the refused ones of `setDown(true)` included. */
  readonly requests: RecordedOidcRequest[];
  /** Requests received for a path (`/token`) or an endpoint URL. */
  count(pathOrUrl: string): number;
  /** Runs the authorization request and the login over HTTP, like a browser with its cookies; stops at the redirect to the client. */
  authorize(params: AuthorizeParams): Promise<AuthorizeResult>;
  /** Replaces the signing key by a new one with a new `kid`; codes, sessions and tokens issued stay valid. */
  rotateKeys(): Promise<void>;
  /** While down, every endpoint answers 503; with `paths` (`['/jwks']`), only those. */
  setDown(down: boolean, paths?: readonly string[]): void;
  close(): Promise<void>;
}

/** The part of oidc-provider's API used here: the package ships no type declarations. */
interface OidcProviderModule {
  default: new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;
}

interface ProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): unknown;
  on(event: 'server_error', listener: (ctx: unknown, error: Error) => void): unknown;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options: { mergeWithLastSubmission: boolean }): Promise<void>;
  Grant: new (properties: { accountId: string; clientId: string }) => GrantInstance;
}

interface KoaContext {
  readonly req: IncomingMessage;
  readonly path: string;
  body: unknown;
  readonly oidc?: { readonly body?: Readonly<Record<string, unknown>> };
}

interface InteractionDetails {
  readonly uid: string;
  readonly prompt: { readonly name: string; readonly details: { readonly missingOIDCClaims?: readonly string[] } };
  readonly params: Readonly<Record<string, unknown>>;
  readonly session?: { readonly accountId?: string };
  readonly grantId?: string;
}

interface GrantInstance {
  addOIDCScope(scope: string): void;
  rejectOIDCScope(scope: string): void;
  addOIDCClaims(claims: readonly string[]): void;
  save(): Promise<string>;
}

type RequestRecord = { -readonly [Field in keyof RecordedOidcRequest]: RecordedOidcRequest[Field] };

interface SigningKey {
  readonly kid: string;
  readonly privateJwk: JWK;
}

interface StoredArtifact {
  readonly payload: Record<string, unknown>;
  readonly expiresAt: number;
}

const EMAIL_CLAIMS = ['email', 'email_verified'];
const INTERACTION_PATH = /^\/interaction\/[A-Za-z0-9_-]+$/;
const FORM_LIMIT_BYTES = 16 * 1024;

let providerModule: Promise<OidcProviderModule> | undefined;

function loadOidcProvider(): Promise<OidcProviderModule> {
  // A string-typed specifier keeps the compiler from asking for the missing declarations.
  const specifier: string = 'oidc-provider';
  providerModule ??= import(specifier) as Promise<OidcProviderModule>;
  return providerModule;
}

/** Starts an OpenID Provider (panva's oidc-provider) on 127.0.0.1 with our own login page. */
export async function startOidcProvider(options: OidcProviderOptions): Promise<OidcProviderHandle> {
  const { default: Provider } = await loadOidcProvider();
  const { port = 0, clients, accounts, idTokenTtlSeconds = 3600, accessTokenTtlSeconds = 3600, signingAlg = 'RS256', advertisesPkce = true, withheldScopes = [] } = options;
  const requests: RecordedOidcRequest[] = [];
  // The body is the provider's to read, so client_secret and grant_type are filled in after it has.
  const recorded = new WeakMap<IncomingMessage, RequestRecord>();
  const artifacts = new Map<string, StoredArtifact>();
  const cookieKeys = [randomBytes(32).toString('base64url')];
  let down: boolean | ReadonlySet<string> = false;
  let current: { provider: ProviderInstance; handle: (req: IncomingMessage, res: ServerResponse) => Promise<void> } | undefined;

  const server = createServer(function oidcProviderServer(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const entry: RequestRecord = { method: req.method ?? 'GET', path: url.pathname, authMethod: basicAuthIn(req) ? 'basic' : 'none', grantType: null, at: Date.now() };
    requests.push(entry);
    recorded.set(req, entry);
    if (down === true || (down !== false && down.has(url.pathname)) || !current) return sendJson(res, 503, { error: 'temporarily_unavailable', error_description: 'the provider is down' });
    if (INTERACTION_PATH.test(url.pathname)) return void handleInteraction(current.provider, accounts, new Set(withheldScopes), req, res);
    void current.handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const buildProvider = async (): Promise<void> => {
    const key = await createSigningKey(signingAlg);
    const provider = new Provider(issuer, providerConfiguration({ clients, accounts, idTokenTtlSeconds, accessTokenTtlSeconds, signingAlg, key, artifacts, cookieKeys }));
    provider.use(async function recordClientAuth(ctx, next) {
      await next();
      const entry = recorded.get(ctx.req);
      const body = ctx.oidc?.body;
      if (!entry || !body) return;
      if (typeof body['client_secret'] === 'string') entry.authMethod = 'post';
      if (typeof body['grant_type'] === 'string') entry.grantType = body['grant_type'];
    });
    if (!advertisesPkce) {
      provider.use(async function withoutPkceMethods(ctx, next) {
        await next();
        if (ctx.path === '/.well-known/openid-configuration' && ctx.body !== null && typeof ctx.body === 'object') {
          const { code_challenge_methods_supported: _dropped, ...rest } = ctx.body as Record<string, unknown>;
          ctx.body = rest;
        }
      });
    }
    provider.on('server_error', (_ctx, error) => process.stderr.write(`test OpenID Provider ${issuer}: ${error.stack ?? error.message}\n`));
    current = { provider, handle: provider.callback() };
  };
  await buildProvider();

  const authorizationUrl = `${issuer}/auth`;
  return {
    issuer,
    url: issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    jwksUrl: `${issuer}/jwks`,
    tokenUrl: `${issuer}/token`,
    userinfoUrl: `${issuer}/me`,
    authorizationUrl,
    requests,
    count: (pathOrUrl) => {
      const path = pathOrUrl.startsWith('/') ? pathOrUrl : new URL(pathOrUrl).pathname;
      return requests.filter((request) => request.path === path).length;
    },
    authorize: (params) => authorizeOverHttp(authorizationUrl, params),
    rotateKeys: buildProvider,
    setDown: (value, paths) => {
      down = value && paths !== undefined ? new Set(paths) : value;
    },
    close: () => closeServer(server),
  };
}

interface ConfigurationInput {
  readonly clients: readonly OidcClient[];
  readonly accounts: Readonly<Record<string, OidcAccount>>;
  readonly idTokenTtlSeconds: number;
  readonly accessTokenTtlSeconds: number;
  readonly signingAlg: 'RS256' | 'ES256';
  readonly key: SigningKey;
  readonly artifacts: Map<string, StoredArtifact>;
  readonly cookieKeys: readonly string[];
}

function providerConfiguration(input: ConfigurationInput): Record<string, unknown> {
  const { clients, accounts, signingAlg } = input;
  return {
    adapter: (model: string) => memoryAdapter(input.artifacts, model),
    jwks: { keys: [input.key.privateJwk] },
    cookies: { keys: [...input.cookieKeys] },
    clients: clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: [...client.redirectUris],
      token_endpoint_auth_method: client.tokenEndpointAuthMethod,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      id_token_signed_response_alg: signingAlg,
    })),
    responseTypes: ['code'],
    scopes: ['openid', 'profile', 'email'],
    claims: claimsByScope(accounts),
    // The granted claims go into the ID token too, as many providers do, not only to userinfo.
    conformIdTokenClaims: false,
    // The gateway's nonce method sends no code_challenge; one that is sent is still checked.
    pkce: { required: () => false },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      resourceIndicators: { enabled: false },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, sub: string) => {
      if (!Object.hasOwn(accounts, sub)) return undefined;
      const claims = accounts[sub]?.claims ?? {};
      return { accountId: sub, claims: async () => ({ ...claims, sub }) };
    },
    ttl: {
      AccessToken: input.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      IdToken: input.idTokenTtlSeconds,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
    clientBasedCORS: () => true,
    renderError,
  };
}

function claimsByScope(accounts: Readonly<Record<string, OidcAccount>>): Record<string, string[]> {
  const profile = new Set(['name', 'given_name', 'family_name', 'preferred_username']);
  for (const account of Object.values(accounts)) {
    for (const claim of Object.keys(account.claims)) {
      if (claim !== 'sub' && !EMAIL_CLAIMS.includes(claim)) profile.add(claim);
    }
  }
  return { openid: ['sub'], profile: [...profile], email: EMAIL_CLAIMS };
}

async function createSigningKey(alg: 'RS256' | 'ES256'): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { kid, privateJwk: { ...jwk, kid, alg, use: 'sig' } };
}

/** oidc-provider's storage contract, in memory; shared by every provider instance so key rotation keeps sessions and codes. */
function memoryAdapter(artifacts: Map<string, StoredArtifact>, model: string) {
  const keyOf = (id: string) => `${model}:${id}`;
  const find = async (id: string): Promise<Record<string, unknown> | undefined> => {
    const stored = artifacts.get(keyOf(id));
    if (!stored || stored.expiresAt <= Date.now()) return undefined;
    return stored.payload;
  };
  return {
    upsert: async (id: string, payload: Record<string, unknown>, expiresIn?: number) => {
      // Kept past expiry by the provider's 15 s clock tolerance so it, not we, decides what expired.
      const expiresAt = typeof expiresIn === 'number' ? Date.now() + (expiresIn + 15) * 1000 : Number.POSITIVE_INFINITY;
      artifacts.set(keyOf(id), { payload, expiresAt });
      if (model === 'Session' && typeof payload['uid'] === 'string') artifacts.set(`SessionUid:${payload['uid']}`, { payload: { id }, expiresAt });
    },
    find,
    findByUid: async (uid: string) => {
      const index = artifacts.get(`SessionUid:${uid}`)?.payload['id'];
      return typeof index === 'string' ? find(index) : undefined;
    },
    consume: async (id: string) => {
      const stored = artifacts.get(keyOf(id));
      if (stored) stored.payload['consumed'] = Math.floor(Date.now() / 1000);
    },
    destroy: async (id: string) => {
      artifacts.delete(keyOf(id));
    },
    revokeByGrantId: async (grantId: string) => {
      for (const [key, stored] of artifacts) {
        if (stored.payload['grantId'] === grantId) artifacts.delete(key);
      }
    },
  };
}

async function handleInteraction(provider: ProviderInstance, accounts: Readonly<Record<string, OidcAccount>>, withheld: ReadonlySet<string>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const details = await provider.interactionDetails(req, res);
    const clientId = String(details.params['client_id'] ?? '');
    if (details.prompt.name !== 'login') {
      // Consent is granted without asking: these providers stand in for an IdP the user already trusts.
      const grantId = await grantRequested(provider, details, details.session?.accountId ?? '', withheld);
      return await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }
    if (req.method !== 'POST') return sendHtml(res, 200, loginPage(clientId, '', null));
    const form = new URLSearchParams(await readBody(req));
    const username = form.get('username') ?? '';
    const account = Object.hasOwn(accounts, username) ? accounts[username] : undefined;
    if (!account || account.password !== (form.get('password') ?? '')) return sendHtml(res, 401, loginPage(clientId, username, 'Wrong username or password.'));
    const grantId = await grantRequested(provider, details, username, withheld);
    await provider.interactionFinished(req, res, { login: { accountId: username }, consent: { grantId } }, { mergeWithLastSubmission: false });
  } catch (error) {
    const status = typeof error === 'object' && error !== null && 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (!res.headersSent) sendHtml(res, status, page('Sign-in failed', `<p role="alert">${escapeHtml(error instanceof Error ? error.message : String(error))}</p>`));
  }
}

async function grantRequested(provider: ProviderInstance, details: InteractionDetails, accountId: string, withheld: ReadonlySet<string>): Promise<string> {
  const grant = new provider.Grant({ accountId, clientId: String(details.params['client_id'] ?? '') });
  const scope = details.params['scope'];
  if (typeof scope === 'string') {
    const requested = scope.split(' ');
    grant.addOIDCScope(requested.filter((s) => !withheld.has(s)).join(' '));
    // Refused, not just left out: else the provider asks for consent again.
    const refused = requested.filter((s) => withheld.has(s));
    if (refused.length > 0) grant.rejectOIDCScope(refused.join(' '));
  }
  const claims = details.prompt.details.missingOIDCClaims;
  if (claims) grant.addOIDCClaims(claims);
  return grant.save();
}

function loginPage(clientId: string, username: string, error: string | null): string {
  return page('Sign in', `
    <h1>Sign in</h1>
    <p>to continue to <strong>${escapeHtml(clientId)}</strong></p>
    ${error ? `<p role="alert" class="error">${escapeHtml(error)}</p>` : ''}
    <form method="post" autocomplete="off">
      <label for="username">Username</label>
      <input id="username" name="username" type="text" value="${escapeHtml(username)}" autofocus required>
      <label for="password">Password</label>
      <input id="password" name="password" type="password" required>
      <button type="submit">Sign in</button>
    </form>`);
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} - test OpenID Provider</title>
<style>body{font-family:sans-serif;max-width:22rem;margin:3rem auto}label,input,button{display:block;width:100%;margin:.3rem 0}.error{color:#b00}</style>
</head>
<body>${body}
</body>
</html>`;
}

async function renderError(ctx: { type: string; body: string }, out: Record<string, unknown>): Promise<void> {
  ctx.type = 'html';
  ctx.body = page('Error', Object.entries(out).map(([name, value]) => `<p><strong>${escapeHtml(name)}</strong>: ${escapeHtml(String(value))}</p>`).join(''));
}

async function logoutSource(ctx: { body: string }, form: string): Promise<void> {
  ctx.body = page('Sign out', `${form}<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>`);
}

async function postLogoutSuccessSource(ctx: { body: string }): Promise<void> {
  ctx.body = page('Signed out', '<p>You are signed out.</p>');
}

/** Follows the authorization request like a browser: the login form once, then the redirects, keeping cookies per path. */
async function authorizeOverHttp(authorizationUrl: string, params: AuthorizeParams): Promise<AuthorizeResult> {
  const query = new URLSearchParams({ client_id: params.clientId, redirect_uri: params.redirectUri, response_type: 'code', scope: params.scope });
  if (params.state !== undefined) query.set('state', params.state);
  if (params.nonce !== undefined) query.set('nonce', params.nonce);
  if (params.codeChallenge !== undefined) query.set('code_challenge', params.codeChallenge);
  if (params.codeChallengeMethod !== undefined) query.set('code_challenge_method', params.codeChallengeMethod);
  const callback = new URL(params.redirectUri);
  const jar = new Map<string, { name: string; value: string; path: string }>();
  let url = new URL(`${authorizationUrl}?${query}`);
  let answer = await browse(jar, url, null);
  let signedIn = false;
  for (let step = 0; step < 12; step += 1) {
    if (answer.location !== null && answer.status >= 300 && answer.status < 400) {
      url = new URL(answer.location, url);
      if (url.origin === callback.origin && url.pathname === callback.pathname) return authorizationResult(url);
      answer = await browse(jar, url, null);
    } else if (answer.status === 200 && url.pathname.startsWith('/interaction/') && !signedIn) {
      signedIn = true;
      answer = await browse(jar, url, new URLSearchParams({ username: params.username, password: params.password }));
      if (answer.status === 401) throw new Error(`authorize: the login page refused ${params.username}'s password (401)`);
    } else {
      throw new Error(`authorize: ${url.origin}${url.pathname} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    }
  }
  throw new Error(`authorize: no redirect to ${params.redirectUri} after 12 steps`);
}

function authorizationResult(redirect: URL): AuthorizeResult {
  const error = redirect.searchParams.get('error');
  if (error !== null) throw new Error(`authorize: the provider answered ${error}: ${redirect.searchParams.get('error_description') ?? ''}`);
  const code = redirect.searchParams.get('code');
  if (code === null) throw new Error(`authorize: no code in ${redirect.href}`);
  return { code, state: redirect.searchParams.get('state'), redirect: redirect.href };
}

async function browse(jar: Map<string, { name: string; value: string; path: string }>, url: URL, form: URLSearchParams | null): Promise<{ status: number; location: string | null; text: string }> {
  const cookies = [...jar.values()].filter((cookie) => url.pathname === cookie.path || url.pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`));
  const headers: Record<string, string> = {};
  if (cookies.length > 0) headers['cookie'] = cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
  const response = await fetch(url, form ? { method: 'POST', headers, body: form, redirect: 'manual' } : { headers, redirect: 'manual' });
  for (const line of response.headers.getSetCookie()) {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const equals = pair.indexOf('=');
    const name = pair.slice(0, equals);
    const path = attributes.find((attribute) => attribute.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
    const expired = attributes.some((attribute) => /^max-age=(0|-)/i.test(attribute) || (/^expires=/i.test(attribute) && Date.parse(attribute.slice(8)) < Date.now()));
    if (expired) jar.delete(`${name};${path}`);
    else jar.set(`${name};${path}`, { name, value: pair.slice(equals + 1), path });
  }
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

function basicAuthIn(req: IncomingMessage): boolean {
  return /^basic /i.test(req.headers.authorization ?? '');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT_BYTES) throw Object.assign(new Error('the form is too large'), { statusCode: 413 });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Keep-alive connections from fetch would hold close() open until they time out.
    server.closeAllConnections();
  });
}
