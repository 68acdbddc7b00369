export { createSamlAcs } from './acs.js';
export type { SamlAcs, SamlAcsOptions, SamlGrant } from './acs.js';
export { parseIdpMetadata, SamlMetadataError } from './idp-metadata.js';
export type { IdpMetadata } from './idp-metadata.js';
export { SAML_REFUSAL_REASONS, SamlError, toSamlError } from './saml-error.js';
export type { SamlRefusalReason } from './saml-error.js';
export { samlSsoUrl } from './sso-url.js';
export type { ServiceProvider } from './sso-url.js';
