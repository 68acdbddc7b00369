import { SamlError } from './saml-error.js';
import { attribute, firstElement, isSamlElement, parseXml, selectElements, text } from './saml-xml.js';
import type { XmlElement } from './saml-xml.js';

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

/** A bearer SubjectConfirmation's data; times in epoch milliseconds. */
export interface BearerConfirmation {
  readonly recipient: string | null;
  readonly notBefore: number | null;
  readonly notOnOrAfter: number | null;
}

export interface SamlAttribute {
  readonly name: string;
  readonly values: readonly string[];
}

/** The fields of a signed assertion the ACS checks and grants; times in epoch milliseconds. */
export interface AssertionFields {
  readonly id: string;
  readonly issuer: string;
  readonly nameId: string | null;
  readonly bearers: readonly BearerConfirmation[];
  readonly notBefore: number | null;
  readonly notOnOrAfter: number | null;
  /** The earliest SessionNotOnOrAfter of the AuthnStatements. */
  readonly sessionNotOnOrAfter: number | null;
  readonly attributes: readonly SamlAttribute[];
}

/** Reads the assertion node-saml verified: only signed bytes are read, never the rest of the response. */
export function readAssertion(xml: string): AssertionFields {
  const assertion = parseXml(xml).documentElement;
  if (!isSamlElement(assertion, 'saml', 'Assertion')) throw new SamlError('no_assertion', 'the signed element is not a SAML assertion');
  const id = attribute(assertion, 'ID') ?? '';
  if (id === '') throw new SamlError('malformed', 'the assertion has no ID');
  const issuerElement = firstElement('saml:Issuer', assertion);
  const conditions = selectElements('saml:Conditions', assertion);
  if (conditions.length > 1) throw new SamlError('malformed', 'the assertion has more than one Conditions element');
  const subject = firstElement('saml:Subject', assertion);
  const nameId = subject === null ? null : firstElement('saml:NameID', subject);
  const sessionEnds = selectElements('saml:AuthnStatement', assertion)
    .map((s) => instant(s, 'SessionNotOnOrAfter'))
    .filter((t) => t !== null);
  return {
    id,
    issuer: issuerElement === null ? '' : text(issuerElement),
    nameId: nameId === null ? null : text(nameId),
    bearers: subject === null ? [] : bearerConfirmations(subject),
    notBefore: conditions[0] === undefined ? null : instant(conditions[0], 'NotBefore'),
    notOnOrAfter: conditions[0] === undefined ? null : instant(conditions[0], 'NotOnOrAfter'),
    sessionNotOnOrAfter: sessionEnds.length === 0 ? null : Math.min(...sessionEnds),
    attributes: selectElements('saml:AttributeStatement/saml:Attribute', assertion).map((a) => ({
      name: attribute(a, 'Name') ?? '',
      values: selectElements('saml:AttributeValue', a).map((v) => v.textContent ?? ''),
    })),
  };
}

function bearerConfirmations(subject: XmlElement): BearerConfirmation[] {
  return selectElements('saml:SubjectConfirmation', subject)
    .filter((c) => attribute(c, 'Method') === BEARER)
    .map((c) => {
      const data = firstElement('saml:SubjectConfirmationData', c);
      if (data === null) return { recipient: null, notBefore: null, notOnOrAfter: null };
      return { recipient: attribute(data, 'Recipient'), notBefore: instant(data, 'NotBefore'), notOnOrAfter: instant(data, 'NotOnOrAfter') };
    });
}

function instant(element: XmlElement, name: string): number | null {
  const value = attribute(element, name);
  if (value === null) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new SamlError('malformed', `${element.localName}/@${name} ${JSON.stringify(value.slice(0, 40))} is not a valid date`);
  return ms;
}
