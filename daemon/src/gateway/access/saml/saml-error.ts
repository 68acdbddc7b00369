import { SamlStatusError } from '@node-saml/node-saml';
import { XmlSyntaxError } from './saml-xml.js';
import { PorticoError } from '../../../core/errors.js';

/** Why the ACS refused a SAMLResponse; callers and logs branch on these, never on the message. */
export const SAML_REFUSAL_REASONS = [
  'missing_response',
  'malformed',
  'status',
  'no_assertion',
  'encrypted',
  'signature',
  'issuer',
  'audience',
  'recipient',
  'not_yet_valid',
  'expired',
  'no_subject',
  'replayed',
] as const;

export type SamlRefusalReason = (typeof SAML_REFUSAL_REASONS)[number];

export class SamlError extends PorticoError {
  override name = 'SamlError';
  constructor(
    readonly reason: SamlRefusalReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('SAML_INVALID', message, options);
  }
}

/** node-saml's messages (lib/saml.js, lib/xml.js of 5.x), by the start of the text, to our reasons. */
const NODE_SAML_MESSAGES: readonly (readonly [prefix: string, reason: SamlRefusalReason, message: string])[] = [
  ['Invalid signature from encrypted assertion', 'signature', 'the encrypted assertion is not signed by a certificate in the IdP metadata'],
  ['Invalid EncryptedAssertion content', 'encrypted', 'the EncryptedAssertion does not hold an assertion'],
  ['No decryption key for encrypted SAML response', 'encrypted', 'the assertion is encrypted and the gateway does not decrypt assertions (configure the IdP to sign, not encrypt, them)'],
  ['Invalid signature: multiple assertions', 'malformed', 'the response holds more than one assertion'],
  ['Invalid signature', 'signature', 'the assertion signature does not verify with any certificate in the IdP metadata (did the IdP rotate its key? refresh idp_metadata_file)'],
  ['Invalid document signature', 'signature', 'the response signature does not verify with any certificate in the IdP metadata'],
  ['Too many signatures found', 'signature', 'the assertion carries more than one signature'],
  ['Only 1 signed references', 'signature', 'the signature signs more than one reference'],
  ['ref URI included quote character', 'signature', 'the signature reference is not a valid ID'],
  ['signature reference uri not found', 'signature', 'the signature has no reference URI'],
  ['Cannot obtain assertion from signed data', 'signature', 'the signed data holds no assertion'],
  ['Missing SAML assertion', 'no_assertion', 'the response holds no assertion'],
  ['SAML assertion not yet valid', 'not_yet_valid', 'the assertion is not valid yet (NotBefore is in the future; are the clocks of IdP and gateway in sync?)'],
  ['SAML assertion expired', 'expired', 'the assertion has expired (NotOnOrAfter is in the past)'],
  ['SAML assertion has no AudienceRestriction', 'audience', 'the assertion has no AudienceRestriction'],
  ['SAML assertion AudienceRestriction has no Audience', 'audience', 'the assertion AudienceRestriction has no Audience'],
  ['Unknown SAML issuer', 'issuer', 'the response comes from an unknown issuer'],
  ['Missing SAML issuer', 'issuer', 'the response has no Issuer'],
  ['Error parsing ', 'malformed', 'a timestamp of the assertion is not a valid date'],
  ['Unable to process multiple conditions', 'malformed', 'the assertion has more than one Conditions element'],
  ['Unknown SAML response message', 'malformed', 'the document is not a SAML Response'],
  ['Not a valid XML document', 'malformed', 'the response is not XML'],
];

/** Turns whatever the validation threw into a SamlError, keeping the original as `cause`. */
export function toSamlError(error: unknown): SamlError {
  if (error instanceof SamlError) return error;
  if (error instanceof XmlSyntaxError) return new SamlError('malformed', `the response is not well-formed XML (${error.message})`, { cause: error });
  if (error instanceof SamlStatusError) return new SamlError('status', `the IdP did not authenticate the user: ${error.message}`, { cause: error });
  const original = error instanceof Error ? error.message : String(error);
  // node-saml's audience message names both audiences, which a log reader needs.
  if (original.startsWith('SAML assertion audience mismatch')) return new SamlError('audience', `the assertion is not meant for this service provider (${original.replace(/^SAML assertion audience mismatch\.\s*/, '')})`, { cause: error });
  const known = NODE_SAML_MESSAGES.find(([prefix]) => original.startsWith(prefix));
  if (known !== undefined) return new SamlError(known[1], known[2], { cause: error });
  return new SamlError('malformed', `the response could not be validated: ${original.slice(0, 200)}`, { cause: error });
}
