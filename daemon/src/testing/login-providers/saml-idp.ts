import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import { attribute, escapeXml, firstElement, isSamlElement, parseXml, SAML_NS, text } from '../../gateway/access/saml/saml-xml.js';

export interface SamlIdpUser {
  readonly password: string;
  /** Defaults to the user name. */
  readonly nameId?: string;
  /** An array becomes one Attribute with several AttributeValues. */
  readonly attributes?: Readonly<Record<string, string | readonly string[]>>;
}

export interface SamlIdpOptions {
  /** 0 (the default) takes a free port. */
  readonly port?: number;
  /** Defaults to the metadata URL. */
  readonly entityId?: string;
  readonly users: Readonly<Record<string, SamlIdpUser>>;
  readonly assertionLifetimeSeconds?: number;
  /** Null: no SessionNotOnOrAfter in the AuthnStatement. */
  readonly sessionLifetimeSeconds?: number | null;
  readonly signResponse?: boolean;
  readonly signAssertion?: boolean;
}

export interface IssueResponseOptions {
  readonly user: string;
  readonly acsUrl: string;
  /** The SP's entity ID: the AuthnRequest's Issuer. */
  readonly audience: string;
  readonly inResponseTo?: string;
  readonly now?: Date;
  readonly notBefore?: Date;
  /** Of the Conditions and of the bearer SubjectConfirmationData. */
  readonly notOnOrAfter?: Date;
  /** Null: none; undefined: from sessionLifetimeSeconds. */
  readonly sessionNotOnOrAfter?: Date | null;
  /** The top-level StatusCode, a full URN or its last part (`Responder`); non-success responses carry no assertion. */
  readonly status?: string;
  readonly statusMessage?: string;
}

export interface SamlIdpLogin {
  readonly acsUrl: string;
  /** Base64, as the auto-post form carries it. */
  readonly samlResponse: string;
  readonly relayState: string | null;
}

export interface SamlIdp {
  readonly url: string;
  readonly entityId: string;
  readonly ssoUrl: string;
  readonly metadataUrl: string;
  readonly metadataXml: string;
  readonly certificatePem: string;
  readonly requests: Array<{ readonly method: string; readonly path: string }>;
  writeMetadata(path: string): void;
  /** A signed SAMLResponse (base64) without a browser round trip. */
  issueResponse(options: IssueResponseOptions): string;
  /** GET the SSO URL and POST the login form over HTTP, as a browser would; the auto-post form's content. */
  login(ssoUrl: string, user: string, password: string): Promise<SamlIdpLogin>;
  close(): Promise<void>;
}

const STATUS_PREFIX = 'urn:oasis:names:tc:SAML:2.0:status:';
const BINDINGS = 'urn:oasis:names:tc:SAML:2.0:bindings:';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';

/** A SAML 2.0 identity provider on 127.0.0.1 with its own throwaway signing key, for tests. */
export async function startSamlIdp(options: SamlIdpOptions): Promise<SamlIdp> {
  const { users, assertionLifetimeSeconds = 300, sessionLifetimeSeconds = 3600, signResponse = false, signAssertion = true } = options;
  const { key, certificate } = signingKey();
  const requests: Array<{ method: string; path: string }> = [];
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, error instanceof BadRequest ? 400 : 500, 'text/plain; charset=utf-8', `${error instanceof Error ? error.message : String(error)}\n`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const metadataUrl = `${url}/metadata`;
  const entityId = options.entityId ?? metadataUrl;
  const ssoUrl = `${url}/sso`;
  const metadataXml = idpMetadataXml(entityId, ssoUrl, certificate);

  function issueResponse(o: IssueResponseOptions): string {
    const account = Object.hasOwn(users, o.user) ? users[o.user] : undefined;
    if (account === undefined) throw new Error(`saml idp: no user ${JSON.stringify(o.user)}`);
    const now = o.now ?? new Date();
    const status = o.status === undefined ? `${STATUS_PREFIX}Success` : o.status.includes(':') ? o.status : `${STATUS_PREFIX}${o.status}`;
    const sessionEnd = o.sessionNotOnOrAfter !== undefined ? o.sessionNotOnOrAfter : sessionLifetimeSeconds === null ? null : new Date(now.getTime() + sessionLifetimeSeconds * 1000);
    const assertion =
      status === `${STATUS_PREFIX}Success`
        ? assertionXml({
            entityId,
            nameId: account.nameId ?? o.user,
            attributes: account.attributes ?? {},
            acsUrl: o.acsUrl,
            audience: o.audience,
            inResponseTo: o.inResponseTo ?? null,
            now,
            notBefore: o.notBefore ?? now,
            notOnOrAfter: o.notOnOrAfter ?? new Date(now.getTime() + assertionLifetimeSeconds * 1000),
            sessionNotOnOrAfter: sessionEnd,
          })
        : '';
    const statusXml = `<samlp:StatusCode Value="${escapeXml(status)}"/>${o.statusMessage === undefined ? '' : `<samlp:StatusMessage>${escapeXml(o.statusMessage)}</samlp:StatusMessage>`}`;
    let xml =
      `<samlp:Response xmlns:samlp="${SAML_NS.samlp}" xmlns:saml="${SAML_NS.saml}" ID="${newId()}" Version="2.0" IssueInstant="${now.toISOString()}"` +
      ` Destination="${escapeXml(o.acsUrl)}"${o.inResponseTo === undefined ? '' : ` InResponseTo="${escapeXml(o.inResponseTo)}"`}>` +
      `<saml:Issuer>${escapeXml(entityId)}</saml:Issuer><samlp:Status>${statusXml}</samlp:Status>${assertion}</samlp:Response>`;
    const response = "/*[local-name()='Response']";
    if (signAssertion && assertion !== '') xml = sign(xml, `${response}/*[local-name()='Assertion']`, key, certificate);
    if (signResponse) xml = sign(xml, response, key, certificate);
    return Buffer.from(xml, 'utf8').toString('base64');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestUrl = new URL(req.url ?? '/', url);
    const method = req.method ?? 'GET';
    requests.push({ method, path: requestUrl.pathname });
    if (method === 'GET' && requestUrl.pathname === '/metadata') return send(res, 200, 'application/samlmetadata+xml', metadataXml);
    if (requestUrl.pathname === '/sso' && (method === 'GET' || method === 'POST')) {
      const params = method === 'GET' ? requestUrl.searchParams : new URLSearchParams(await readBody(req));
      const encoded = params.get('SAMLRequest');
      if (encoded === null) throw new BadRequest('no SAMLRequest parameter');
      const raw = Buffer.from(encoded, 'base64');
      // The Redirect binding deflates the request, the POST binding does not.
      const request = readAuthnRequest((method === 'GET' ? inflate(raw) : raw).toString('utf8'));
      return send(res, 200, 'text/html; charset=utf-8', loginPage({ ...request, relayState: params.get('RelayState') }, null, ''));
    }
    if (method === 'POST' && requestUrl.pathname === '/login') {
      const form = new URLSearchParams(await readBody(req));
      const pending = { acsUrl: form.get('acs_url') ?? '', audience: form.get('audience') ?? '', requestId: form.get('in_response_to'), relayState: form.get('relay_state') };
      if (pending.acsUrl === '' || pending.audience === '') throw new BadRequest('the login form lost its request state; start again at the SP');
      const user = form.get('username') ?? '';
      const account = Object.hasOwn(users, user) ? users[user] : undefined;
      if (account === undefined || account.password !== (form.get('password') ?? '')) {
        return send(res, 401, 'text/html; charset=utf-8', loginPage(pending, 'Wrong user name or password.', user));
      }
      const samlResponse = issueResponse({ user, acsUrl: pending.acsUrl, audience: pending.audience, ...(pending.requestId === null ? {} : { inResponseTo: pending.requestId }) });
      return send(res, 200, 'text/html; charset=utf-8', autoPostPage(pending.acsUrl, samlResponse, pending.relayState));
    }
    send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  }

  return {
    url,
    entityId,
    ssoUrl,
    metadataUrl,
    metadataXml,
    certificatePem: certificate,
    requests,
    writeMetadata: (path) => writeFileSync(path, metadataXml),
    issueResponse,
    login: async function samlIdpLogin(loginUrl, user, password) {
      const page = await fetch(loginUrl);
      const pageHtml = await page.text();
      if (page.status !== 200) throw new Error(`saml idp: GET ${loginUrl} answered ${page.status}: ${pageHtml.trim()}`);
      const form = new URLSearchParams({ ...hiddenFields(pageHtml), username: user, password });
      const answer = await fetch(new URL(formAction(pageHtml), loginUrl), { method: 'POST', body: form });
      const answerHtml = await answer.text();
      if (answer.status !== 200) throw new Error(`saml idp: login as ${JSON.stringify(user)} answered ${answer.status}`);
      const posted = hiddenFields(answerHtml);
      const samlResponse = posted['SAMLResponse'];
      if (samlResponse === undefined) throw new Error('saml idp: the login answer has no SAMLResponse field');
      return { acsUrl: formAction(answerHtml), samlResponse, relayState: posted['RelayState'] ?? null };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

class BadRequest extends Error {}

interface PendingLogin {
  readonly requestId: string | null;
  readonly acsUrl: string;
  readonly audience: string;
  readonly relayState: string | null;
}

/** An RSA key and a self-signed certificate from openssl, as the backend TLS tests make theirs. */
function signingKey(): { key: string; certificate: string } {
  const dir = mkdtempSync(join(tmpdir(), 'portico-saml-idp-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '2', '-subj', '/CN=Portico Test SAML IdP'], { cwd: dir, stdio: 'pipe' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), certificate: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function idpMetadataXml(entityId: string, ssoUrl: string, certificatePem: string): string {
  const der = certificatePem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const service = (binding: string) => `    <md:SingleSignOnService Binding="${BINDINGS}${binding}" Location="${escapeXml(ssoUrl)}"/>\n`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<md:EntityDescriptor xmlns:md="${SAML_NS.md}" xmlns:ds="${SAML_NS.ds}" entityID="${escapeXml(entityId)}">\n` +
    `  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="${SAML_NS.samlp}">\n` +
    `    <md:KeyDescriptor use="signing">\n      <ds:KeyInfo><ds:X509Data><ds:X509Certificate>${der}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>\n    </md:KeyDescriptor>\n` +
    `    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified</md:NameIDFormat>\n` +
    service('HTTP-Redirect') +
    service('HTTP-POST') +
    `  </md:IDPSSODescriptor>\n</md:EntityDescriptor>\n`
  );
}

function readAuthnRequest(xml: string): Omit<PendingLogin, 'relayState'> {
  let root;
  try {
    root = parseXml(xml).documentElement;
  } catch (error) {
    throw new BadRequest(`SAMLRequest: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isSamlElement(root, 'samlp', 'AuthnRequest')) throw new BadRequest(`SAMLRequest holds <${root.localName}>, not an AuthnRequest`);
  const acsUrl = attribute(root, 'AssertionConsumerServiceURL');
  // A real IdP would look the ACS URL up in the SP's metadata; this one has none.
  if (acsUrl === null) throw new BadRequest('the AuthnRequest has no AssertionConsumerServiceURL');
  const issuer = firstElement('saml:Issuer', root);
  if (issuer === null || text(issuer) === '') throw new BadRequest('the AuthnRequest has no Issuer');
  return { requestId: attribute(root, 'ID'), acsUrl, audience: text(issuer) };
}

interface AssertionFields {
  readonly entityId: string;
  readonly nameId: string;
  readonly attributes: Readonly<Record<string, string | readonly string[]>>;
  readonly acsUrl: string;
  readonly audience: string;
  readonly inResponseTo: string | null;
  readonly now: Date;
  readonly notBefore: Date;
  readonly notOnOrAfter: Date;
  readonly sessionNotOnOrAfter: Date | null;
}

/** Elements in the order the SAML schema requires; the signature goes after Issuer. */
function assertionXml(a: AssertionFields): string {
  const end = a.notOnOrAfter.toISOString();
  const inResponseTo = a.inResponseTo === null ? '' : ` InResponseTo="${escapeXml(a.inResponseTo)}"`;
  const session = a.sessionNotOnOrAfter === null ? '' : ` SessionNotOnOrAfter="${a.sessionNotOnOrAfter.toISOString()}"`;
  const attributes = Object.entries(a.attributes).map(([name, value]) => {
    const values = (typeof value === 'string' ? [value] : value).map((v) => `<saml:AttributeValue>${escapeXml(v)}</saml:AttributeValue>`).join('');
    return `<saml:Attribute Name="${escapeXml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${values}</saml:Attribute>`;
  });
  return (
    `<saml:Assertion xmlns:saml="${SAML_NS.saml}" ID="${newId()}" Version="2.0" IssueInstant="${a.now.toISOString()}">` +
    `<saml:Issuer>${escapeXml(a.entityId)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified">${escapeXml(a.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData${inResponseTo} NotOnOrAfter="${end}" Recipient="${escapeXml(a.acsUrl)}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${a.notBefore.toISOString()}" NotOnOrAfter="${end}">` +
    `<saml:AudienceRestriction><saml:Audience>${escapeXml(a.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${a.now.toISOString()}" SessionIndex="${newId()}"${session}>` +
    `<saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes.length === 0 ? '' : `<saml:AttributeStatement>${attributes.join('')}</saml:AttributeStatement>`) +
    `</saml:Assertion>`
  );
}

/** Enveloped RSA-SHA256 signature over the element at `elementXpath`, placed after its Issuer. */
function sign(xml: string, elementXpath: string, privateKey: string, publicCert: string): string {
  const signer = new SignedXml({ privateKey, publicCert, signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', canonicalizationAlgorithm: EXC_C14N });
  signer.addReference({ xpath: elementXpath, digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256', transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', EXC_C14N] });
  signer.computeSignature(xml, { prefix: 'ds', location: { reference: `${elementXpath}/*[local-name()='Issuer']`, action: 'after' } });
  return signer.getSignedXml();
}

function loginPage(pending: PendingLogin, error: string | null, user: string): string {
  const state = [hidden('acs_url', pending.acsUrl), hidden('audience', pending.audience), pending.requestId === null ? '' : hidden('in_response_to', pending.requestId), pending.relayState === null ? '' : hidden('relay_state', pending.relayState)];
  return page(
    'Sign in',
    `<h1>Sign in</h1>\n${error === null ? '' : `<p role="alert">${escapeXml(error)}</p>\n`}<p>to ${escapeXml(pending.audience)}</p>\n` +
      `<form method="post" action="/login">\n${state.join('')}` +
      `<p><label for="username">User name</label> <input id="username" name="username" autocomplete="username" value="${escapeXml(user)}" required></p>\n` +
      `<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required></p>\n` +
      `<button type="submit">Sign in</button>\n</form>`,
  );
}

function autoPostPage(acsUrl: string, samlResponse: string, relayState: string | null): string {
  return page(
    'Signing in',
    `<form method="post" action="${escapeXml(acsUrl)}">\n${hidden('SAMLResponse', samlResponse)}${relayState === null ? '' : hidden('RelayState', relayState)}` +
      `<button type="submit">Continue</button>\n</form>\n<script>document.forms[0].submit();</script>`,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${title} - Portico test IdP</title></head>\n<body>\n${body}\n</body>\n</html>\n`;
}

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeXml(value)}">\n`;
}

/** Reads back the markup `hidden` writes; the pages are this module's own. */
function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[m[1] ?? ''] = unescapeHtml(m[2] ?? '');
  return fields;
}

function formAction(html: string): string {
  const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1];
  if (action === undefined) throw new Error('saml idp: the page has no form');
  return unescapeHtml(action);
}

function unescapeHtml(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[name] ?? '');
}

function inflate(raw: Buffer): Buffer {
  try {
    return inflateRawSync(raw);
  } catch {
    throw new BadRequest('SAMLRequest is not deflated (the HTTP-Redirect binding deflates it)');
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 1 << 20) throw new BadRequest('request body over 1 MiB');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}

function newId(): string {
  return `_${randomBytes(16).toString('hex')}`;
}
