import { readFileSync } from 'node:fs';
import type { Block } from '../../hcl/index.js';
import { parseIdpMetadata, SamlMetadataError } from '../access/saml/index.js';
import type { AttrReader, LoadScope } from './attr-reader.js';
import type { Backends } from './build-backends.js';
import { invalid, logFields } from './build-common.js';
import { buildErrorHandlers } from './build-endpoints.js';
import { backendFor, checkOnBackendOrigin, checkSingleBackend, readCallbackUrl, readHttpUrl, readOAuth2Client } from './build-oauth2.js';
import { headerRange } from './diagnostics.js';
import type { FileChecks } from './file-checks.js';
import type { BetaOAuth2Config, Dyn, OidcBackends, OidcConfig, SamlConfig } from './model.js';

const HOUR = 3_600_000;

interface Builders {
  readonly scope: LoadScope;
  readonly backends: Backends;
  readonly files: FileChecks;
}

/** beta_oauth2: every required part present and usable, or null (each problem reported where it is). */
export function buildBetaOAuth2(block: Block, label: string, b: Builders): BetaOAuth2Config | null {
  const { scope } = b;
  const r = scope.reader(block.body, 'beta_oauth2');
  const grantType = r.value<string>('grant_type');
  if (grantType !== undefined && grantType !== 'authorization_code') invalid(r, scope, 'grant_type', `${JSON.stringify(grantType)} is not supported; beta_oauth2 uses "authorization_code"`);
  const method = r.value<string>('verifier_method');
  if (method !== undefined && method !== 'ccm_s256' && method !== 'state') invalid(r, scope, 'verifier_method', `${JSON.stringify(method)} is not supported; use "ccm_s256" (PKCE) or "state"`);
  const authorizationEndpoint = readHttpUrl(r, scope, 'authorization_endpoint');
  const tokenEndpoint = readHttpUrl(r, scope, 'token_endpoint');
  const redirectUri = readCallbackUrl(r, scope, 'redirect_uri');
  const client = readOAuth2Client(r, scope);
  const verifierValue = r.dyn<string>('verifier_value');
  const customLogFields = logFields(r, []);
  const errorHandlers = buildErrorHandlers(block.body.blocks, customLogFields, scope, b.backends);
  if (!checkSingleBackend(block, r, scope) || !authorizationEndpoint || !tokenEndpoint || redirectUri === null || !verifierValue || (method !== 'ccm_s256' && method !== 'state')) return null;
  const backend = backendFor(block, r, b, 'backend', null, tokenEndpoint.origin);
  if (backend === null) return null;
  checkOnBackendOrigin(r, b, backend, tokenEndpoint, 'token_endpoint');
  return {
    kind: 'beta_oauth2',
    label,
    range: headerRange(block),
    authorizationEndpoint: authorizationEndpoint.href,
    tokenEndpoint: tokenEndpoint.href,
    backend,
    redirectUri,
    client,
    verifierMethod: method,
    verifierValue,
    customLogFields,
    errorHandlers,
  };
}

/** oidc: the provider's endpoints come from its configuration URL at run time; here only what can be checked before. */
export function buildOidc(block: Block, label: string, b: Builders): OidcConfig | null {
  const { scope } = b;
  const r = scope.reader(block.body, 'oidc');
  const method = r.value<string>('verifier_method');
  if (method !== undefined && method !== 'ccm_s256' && method !== 'nonce') invalid(r, scope, 'verifier_method', `${JSON.stringify(method)} is not supported; use "ccm_s256" (PKCE) or "nonce" (or leave it out: ccm_s256 when the provider supports S256, else nonce)`);
  const configurationUrl = readHttpUrl(r, scope, 'configuration_url');
  const redirectUri = readCallbackUrl(r, scope, 'redirect_uri');
  const client = readOAuth2Client(r, scope);
  const verifierValue = r.dyn<string>('verifier_value') as Dyn<string> | undefined;
  const customLogFields = logFields(r, []);
  const errorHandlers = buildErrorHandlers(block.body.blocks, customLogFields, scope, b.backends);
  if (!checkSingleBackend(block, r, scope) || !configurationUrl || redirectUri === null || !verifierValue) return null;
  if (method !== undefined && method !== 'ccm_s256' && method !== 'nonce') return null;
  const shared = r.has('backend') || block.body.blocks.some((c) => c.type === 'backend') ? backendFor(block, r, b, 'backend', null, null) : null;
  // Without a backend, one anonymous backend takes every request; its origin is each URL's own.
  let anonymous: string | null = null;
  const pick = (attr: string): string | null => {
    if (r.has(attr)) return backendFor(block, r, b, attr, null, null);
    if (shared !== null) return shared;
    return (anonymous ??= b.backends.fromUrl(block, null));
  };
  const configuration = pick('configuration_backend');
  const jwks = pick('jwks_uri_backend');
  const token = pick('token_backend');
  const userinfo = pick('userinfo_backend');
  if (configuration === null || jwks === null || token === null || userinfo === null) return null;
  // The other endpoints come from the provider's configuration: checked when they are called.
  checkOnBackendOrigin(r, b, configuration, configurationUrl, 'configuration_url');
  const backends: OidcBackends = { configuration, jwks, token, userinfo };
  return {
    kind: 'oidc',
    label,
    range: headerRange(block),
    configurationUrl: configurationUrl.href,
    configurationTtl: r.value<number>('configuration_ttl') ?? HOUR,
    configurationMaxStale: r.value<number>('configuration_max_stale') ?? HOUR,
    redirectUri,
    client,
    verifierMethod: method ?? null,
    verifierValue,
    jwksTtl: r.value<number>('jwks_ttl') ?? HOUR,
    jwksMaxStale: r.value<number>('jwks_max_stale') ?? HOUR,
    backends,
    customLogFields,
    errorHandlers,
  };
}

/** saml: the IdP metadata is read and checked at load, so a broken file fails the load with its position. */
export function buildSaml(block: Block, label: string, b: Builders): SamlConfig | null {
  const { scope } = b;
  const r = scope.reader(block.body, 'saml');
  const spAcsUrl = readCallbackUrl(r, scope, 'sp_acs_url');
  const spEntityId = r.value<string>('sp_entity_id');
  if (spEntityId !== undefined && spEntityId.trim() === '') invalid(r, scope, 'sp_entity_id', 'the entity id is empty');
  const customLogFields = logFields(r, []);
  const errorHandlers = buildErrorHandlers(block.body.blocks, customLogFields, scope, b.backends);
  const metadataFile = b.files.path(r, 'idp_metadata_file', 'file');
  const idp = metadataFile === null ? null : readMetadata(metadataFile, r, scope);
  if (idp === null || metadataFile === null || spAcsUrl === null || spEntityId === undefined || spEntityId.trim() === '') return null;
  return {
    kind: 'saml',
    label,
    range: headerRange(block),
    idpMetadataFile: metadataFile,
    idp,
    spAcsUrl,
    spEntityId,
    arrayAttributes: r.value<string[]>('array_attributes') ?? [],
    customLogFields,
    errorHandlers,
  };
}

function readMetadata(path: string, r: AttrReader, scope: LoadScope): SamlConfig['idp'] | null {
  try {
    const parsed = parseIdpMetadata(readFileSync(path, 'utf8'));
    return { entityId: parsed.entityId, ssoUrl: parsed.ssoUrl, certificates: [...parsed.certificates] };
  } catch (error) {
    const where = error instanceof SamlMetadataError && error.line !== null ? `${path}:${error.line}${error.column !== null ? `,${error.column}` : ''}` : path;
    const message = error instanceof Error ? error.message : String(error);
    scope.diags.error('Invalid SAML metadata', `${where}: ${message}`, r.attr('idp_metadata_file')?.expr.range);
    return null;
  }
}
