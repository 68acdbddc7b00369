export * from './oidc-provider.js';
export * from './saml-idp.js';
export * from './token-endpoint.js';
