import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { IdpMetadata } from './idp-metadata.js';
import { ReplayCache, replayClaims } from './replay-cache.js';
import { readAssertion } from './saml-assertion.js';
import type { AssertionFields, BearerConfirmation, SamlAttribute } from './saml-assertion.js';
import { SamlError, toSamlError } from './saml-error.js';
import { attribute, firstElement, isSamlElement, parseXml, selectElements, text } from './saml-xml.js';
import type { XmlElement } from './saml-xml.js';
import { parseUrl } from '../../../core/parse-url.js';

/** `request.context.<label>` of a saml access control, plus what the access log names. */
export interface SamlGrant {
  /** The NameID. */
  readonly sub: string;
  /** SessionNotOnOrAfter in UNIX seconds; null when the IdP sent none. */
  readonly exp: number | null;
  /** array_attributes always as arrays (empty when absent), the others as their last value. */
  readonly attributes: Record<string, string | string[]>;
  readonly issuer: string;
  readonly assertionId: string;
}

export interface SamlAcsOptions {
  readonly metadata: IdpMetadata;
  readonly spEntityId: string;
  readonly arrayAttributes?: readonly string[];
  readonly clockSkewMs?: number;
  /** A cache of its own of this size (tests); by default the process's, which outlives reloads (replayClaims). */
  readonly replayCacheSize?: number;
}

export interface SamlAcs {
  /** Rejects with a SamlError when the response must not log the user in. */
  validate(samlResponse: string, acsUrl: string, now?: Date): Promise<SamlGrant>;
}

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/**
 * The Assertion Consumer Service: node-saml verifies the signature and the audience; this adds the
 * issuer, recipient, time windows (against `now`, which node-saml cannot be given), and replay.
 */
export function createSamlAcs({ metadata, spEntityId, arrayAttributes = [], clockSkewMs = 60_000, replayCacheSize }: SamlAcsOptions): SamlAcs {
  if (metadata.certificates.length === 0) throw new TypeError(`saml: the metadata of ${metadata.entityId} has no signing certificate, so no assertion could verify`);
  const own = replayCacheSize === undefined ? null : new ReplayCache(replayCacheSize);
  const arrays = new Set(arrayAttributes);
  return {
    validate: async function samlAcsValidate(samlResponse: string, acsUrl: string, now: Date = new Date()): Promise<SamlGrant> {
      try {
        const base64 = decodableResponse(samlResponse);
        precheckResponse(Buffer.from(base64, 'base64').toString('utf8'), metadata.entityId, acsUrl);
        const assertion = readAssertion(await verifiedAssertionXml(base64, metadata, spEntityId, acsUrl));
        if (assertion.issuer !== metadata.entityId) {
          throw new SamlError('issuer', `the assertion is issued by ${JSON.stringify(assertion.issuer)}, not by the IdP of the metadata, ${JSON.stringify(metadata.entityId)}`);
        }
        const nowMs = now.getTime();
        const bearer = acceptableBearer(assertion.bearers, acsUrl, nowMs, clockSkewMs);
        checkConditions(assertion, nowMs, clockSkewMs);
        const sub = assertion.nameId ?? '';
        if (sub === '') throw new SamlError('no_subject', 'the assertion has no Subject/NameID');
        const usableUntil = Math.min(assertion.notOnOrAfter ?? Infinity, bearer.notOnOrAfter) + clockSkewMs;
        // Read at each use: a gateway serving process sets its daemon's claims once it started.
        if (!(await (own ?? replayClaims()).claim(`${assertion.issuer}\n${assertion.id}`, usableUntil, nowMs))) {
          throw new SamlError('replayed', `assertion ${assertion.id} was already used to log in; a response can be used once`);
        }
        return {
          sub,
          exp: assertion.sessionNotOnOrAfter === null ? null : Math.floor(assertion.sessionNotOnOrAfter / 1000),
          attributes: grantAttributes(assertion.attributes, arrays),
          issuer: assertion.issuer,
          assertionId: assertion.id,
        };
      } catch (error) {
        throw toSamlError(error);
      }
    },
  };
}

/** The form value as node-saml wants it: base64 without the line breaks some IdPs insert. */
function decodableResponse(samlResponse: string): string {
  const base64 = samlResponse.replace(/\s+/g, '');
  if (base64 === '') throw new SamlError('missing_response', 'no SAMLResponse in the request (the IdP posts it as a form field)');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw new SamlError('malformed', 'SAMLResponse is not base64');
  return base64;
}

/** Checks that need no signature, for the clearest message: node-saml would say only "Invalid signature". */
function precheckResponse(xml: string, idpEntityId: string, acsUrl: string): void {
  let response: XmlElement;
  try {
    response = parseXml(xml).documentElement;
  } catch (error) {
    throw new SamlError('malformed', `SAMLResponse is not well-formed XML (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  if (!isSamlElement(response, 'samlp', 'Response')) throw new SamlError('malformed', `SAMLResponse holds <${response.localName}>, not a SAML 2.0 protocol Response`);
  checkStatus(response);
  const issuer = firstElement('saml:Issuer', response);
  if (issuer !== null && text(issuer) !== idpEntityId) {
    throw new SamlError('issuer', `the response is issued by ${JSON.stringify(text(issuer))}, not by the IdP of the metadata, ${JSON.stringify(idpEntityId)}`);
  }
  const destination = attribute(response, 'Destination');
  if (destination !== null && !sameUrl(destination, acsUrl)) {
    throw new SamlError('recipient', `the response is addressed to ${destination}, not to this ACS URL ${acsUrl}`);
  }
  const assertions = selectElements('saml:Assertion', response);
  const count = assertions.length + selectElements('saml:EncryptedAssertion', response).length;
  if (count === 0) throw new SamlError('no_assertion', 'the response holds no assertion');
  // Which of several assertions a signature covers is how wrapping attacks work: refuse them all.
  if (count > 1) throw new SamlError('malformed', `the response holds ${count} assertions; the gateway accepts exactly one`);
  const [assertion] = assertions;
  if (assertion === undefined) return;
  if (selectElements('ds:Signature', assertion).length === 0) throw new SamlError('signature', 'the assertion is not signed (the IdP must sign assertions)');
  // node-saml fails on a missing Conditions with a TypeError instead of saying so.
  if (firstElement('saml:Conditions/saml:AudienceRestriction', assertion) === null) throw new SamlError('audience', 'the assertion has no Conditions/AudienceRestriction naming this service provider');
}

function checkStatus(response: XmlElement): void {
  const code = firstElement('samlp:Status/samlp:StatusCode', response);
  if (code === null) throw new SamlError('malformed', 'the response has no Status/StatusCode');
  const value = attribute(code, 'Value') ?? '';
  if (value === SUCCESS) return;
  const sub = firstElement('samlp:StatusCode', code);
  const detail = sub === null ? '' : ` (${shortStatus(attribute(sub, 'Value') ?? '')})`;
  const messageElement = firstElement('samlp:Status/samlp:StatusMessage', response);
  const message = messageElement === null ? '' : `: ${text(messageElement).slice(0, 200)}`;
  throw new SamlError('status', `the IdP did not authenticate the user: status ${shortStatus(value)}${detail}${message}`);
}

async function verifiedAssertionXml(base64: string, metadata: IdpMetadata, spEntityId: string, acsUrl: string): Promise<string> {
  const saml = new SAML({
    idpCert: [...metadata.certificates],
    issuer: spEntityId,
    audience: spEntityId,
    callbackUrl: acsUrl,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.never,
    // -1 turns node-saml's clock checks off: it reads the wall clock, ours take `now`.
    acceptedClockSkewMs: -1,
  });
  const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: base64 });
  if (profile === null) throw new SamlError('status', 'the IdP did not authenticate the user (NoPassive)');
  return profile.getAssertionXml?.() ?? '';
}

/** The bearer confirmation the Web Browser SSO profile requires; the first one's fault when none fits. */
function acceptableBearer(bearers: readonly BearerConfirmation[], acsUrl: string, nowMs: number, skewMs: number): BearerConfirmation & { notOnOrAfter: number } {
  const faults = bearers.map((bearer): SamlError | null => {
    if (bearer.recipient === null) return new SamlError('recipient', 'the bearer SubjectConfirmationData has no Recipient');
    if (!sameUrl(bearer.recipient, acsUrl)) return new SamlError('recipient', `the assertion is for ${bearer.recipient}, not for this ACS URL ${acsUrl}`);
    if (bearer.notOnOrAfter === null) return new SamlError('no_subject', 'the bearer SubjectConfirmationData has no NotOnOrAfter');
    if (nowMs - skewMs >= bearer.notOnOrAfter) return new SamlError('expired', `the assertion has expired (SubjectConfirmationData NotOnOrAfter ${iso(bearer.notOnOrAfter)})`);
    if (bearer.notBefore !== null && nowMs + skewMs < bearer.notBefore) return new SamlError('not_yet_valid', `the assertion is not valid yet (SubjectConfirmationData NotBefore ${iso(bearer.notBefore)}; are the clocks in sync?)`);
    return null;
  });
  const index = faults.indexOf(null);
  const bearer = bearers[index];
  if (index !== -1 && bearer?.notOnOrAfter != null) return { ...bearer, notOnOrAfter: bearer.notOnOrAfter };
  throw faults[0] ?? new SamlError('no_subject', 'the assertion has no bearer SubjectConfirmation');
}

function checkConditions(assertion: AssertionFields, nowMs: number, skewMs: number): void {
  if (assertion.notBefore !== null && nowMs + skewMs < assertion.notBefore) {
    throw new SamlError('not_yet_valid', `the assertion is not valid yet (NotBefore ${iso(assertion.notBefore)}; are the clocks of IdP and gateway in sync?)`);
  }
  if (assertion.notOnOrAfter !== null && nowMs - skewMs >= assertion.notOnOrAfter) {
    throw new SamlError('expired', `the assertion has expired (NotOnOrAfter ${iso(assertion.notOnOrAfter)})`);
  }
}

/** Values in document order; array_attributes keep all of them, the others the last. */
function grantAttributes(attributes: readonly SamlAttribute[], arrays: ReadonlySet<string>): Record<string, string | string[]> {
  const values = new Map<string, string[]>();
  for (const { name, values: v } of attributes) values.set(name, [...(values.get(name) ?? []), ...v]);
  const granted = new Map<string, string | string[]>();
  for (const [name, v] of values) {
    if (arrays.has(name)) granted.set(name, v);
    else if (v.length > 0) granted.set(name, v[v.length - 1]!);
  }
  for (const name of arrays) if (!granted.has(name)) granted.set(name, []);
  // fromEntries defines own properties, so an attribute named __proto__ stays an attribute.
  return Object.fromEntries(granted);
}

function sameUrl(a: string, b: string): boolean {
  if (a === b) return true;
  const [x, y] = [parseUrl(a), parseUrl(b)];
  return x !== null && y !== null && x.href === y.href;
}

function shortStatus(value: string): string {
  return value.replace(/^urn:oasis:names:tc:SAML:2\.0:status:/, '');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
