import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Block, PlainValue, Range } from '../../hcl/index.js';
import { parseHtpasswd } from '../access/htpasswd.js';
import { createSigner } from '../access/jwt-sign.js';
import type { AttrReader, LoadScope } from './attr-reader.js';
import type { Backends } from './build-backends.js';
import { logFields } from './build-common.js';
import { buildErrorHandlers } from './build-endpoints.js';
import { buildBetaOAuth2, buildOidc, buildSaml } from './build-login.js';
import { checkOnBackendOrigin } from './build-oauth2.js';
import { headerRange, where } from './diagnostics.js';
import type { FileChecks } from './file-checks.js';
import type { AccessControlConfig, BasicAuthConfig, JsonObject, JwksConfig, JwtAlgorithm, JwtConfig, JwtSource, SigningProfileConfig } from './model.js';

export const JWT_ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'RS384', 'RS512', 'HS256', 'HS384', 'HS512', 'ES256', 'ES384', 'ES512'];
/** Labels `request.context` uses for itself. */
const RESERVED_LABELS = ['beta_granted_permissions', 'beta_required_permission', 'granted_permissions', 'required_permission'];
const ACCESS_CONTROL_TYPES = ['basic_auth', 'jwt', 'saml', 'beta_oauth2', 'oidc'];
const HOUR = 3_600_000;
/** The curve each ES algorithm signs with. */
const EC_CURVES: Readonly<Record<string, string>> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

export interface AccessDefinitions {
  readonly accessControls: Record<string, AccessControlConfig>;
  readonly signingProfiles: Record<string, SigningProfileConfig>;
}

interface Builders {
  readonly scope: LoadScope;
  readonly backends: Backends;
  readonly files: FileChecks;
}

/** The labels of access control blocks in definitions, for checking references before the blocks are built. */
export function accessControlLabels(definitions: Block | undefined): Set<string> {
  return new Set((definitions?.body.blocks ?? []).filter((b) => ACCESS_CONTROL_TYPES.includes(b.type)).map((b) => b.labels[0] ?? ''));
}

/** The block type of each login control (beta_oauth2, oidc, saml) by label, for checking the login URL functions' labels. */
export function loginControlKinds(definitions: Block | undefined): Map<string, string> {
  const kinds = new Map<string, string>();
  for (const b of definitions?.body.blocks ?? []) if (b.type === 'beta_oauth2' || b.type === 'oidc' || b.type === 'saml') kinds.set(b.labels[0] ?? '', b.type);
  return kinds;
}

/**
 * The access controls (basic_auth, jwt, beta_oauth2, oidc, saml) and signing profiles of the merged definitions
 * block. Every problem is a positioned diagnostic: a key that cannot be read or does not fit
 * its algorithm fails the load, so the gateway never starts with a control it cannot enforce.
 */
export function buildAccessDefinitions(definitions: Block | undefined, b: Builders): AccessDefinitions {
  const accessControls: Record<string, AccessControlConfig> = {};
  const signingProfiles: Record<string, SigningProfileConfig> = {};
  const controlsAt = new Map<string, Range>();
  const profilesAt = new Map<string, Range>();
  for (const block of definitions?.body.blocks ?? []) {
    const isControl = ACCESS_CONTROL_TYPES.includes(block.type);
    if (!isControl && block.type !== 'jwt_signing_profile') continue;
    const label = block.labels[0] ?? '';
    const labelRange = block.labelRanges[0] ?? block.typeRange;
    if (!checkLabel(label, labelRange, isControl ? controlsAt : profilesAt, block.type, b.scope)) continue;
    if (block.type === 'basic_auth') accessControls[label] = buildBasicAuth(block, label, b);
    else if (block.type === 'jwt') {
      const jwt = buildJwt(block, label, b);
      accessControls[label] = jwt.control;
      if (jwt.profile) addProfile(signingProfiles, profilesAt, jwt.profile, b.scope);
    } else if (block.type === 'beta_oauth2' || block.type === 'oidc' || block.type === 'saml') {
      const built = block.type === 'beta_oauth2' ? buildBetaOAuth2(block, label, b) : block.type === 'oidc' ? buildOidc(block, label, b) : buildSaml(block, label, b);
      if (built) accessControls[label] = built;
    } else if (block.type === 'jwt_signing_profile') {
      const profile = buildSigningProfile(block, label, b);
      if (profile) addProfile(signingProfiles, profilesAt, profile, b.scope);
    }
  }
  return { accessControls, signingProfiles };
}

function checkLabel(label: string, range: Range, seen: Map<string, Range>, type: string, scope: LoadScope): boolean {
  if (label.trim() === '') {
    scope.diags.error('Invalid label', `A ${type} block needs a non-empty label.`, range);
    return false;
  }
  if (RESERVED_LABELS.includes(label)) {
    scope.diags.error('Reserved label', `The label ${JSON.stringify(label)} is reserved (request.context.${label} is set by the gateway); choose another.`, range);
    return false;
  }
  const previous = seen.get(label);
  if (previous) {
    const what = type === 'jwt_signing_profile' ? 'jwt_signing_profile' : 'access control';
    scope.diags.error('Duplicate label', `${what} labels must be unique: ${JSON.stringify(label)} is already defined at ${where(previous)}.`, range);
    return false;
  }
  seen.set(label, range);
  return true;
}

function addProfile(profiles: Record<string, SigningProfileConfig>, seen: Map<string, Range>, profile: SigningProfileConfig, scope: LoadScope): void {
  const previous = seen.get(profile.label);
  if (profile.origin === 'jwt' && previous) {
    scope.diags.error('Duplicate label', `A jwt block with signing_ttl cannot share its label with a jwt_signing_profile: ${JSON.stringify(profile.label)} is a jwt_signing_profile at ${where(previous)}.`, profile.range);
    return;
  }
  if (profile.origin === 'jwt_signing_profile' && profiles[profile.label]?.origin === 'jwt') {
    const other = profiles[profile.label] as SigningProfileConfig;
    scope.diags.error('Duplicate label', `A jwt_signing_profile cannot share its label with a jwt block with signing_ttl: ${JSON.stringify(profile.label)} is a jwt block at ${where(other.range)}.`, profile.range);
    return;
  }
  seen.set(profile.label, profile.range);
  profiles[profile.label] = profile;
}

function buildBasicAuth(block: Block, label: string, b: Builders): BasicAuthConfig {
  const r = b.scope.reader(block.body, 'basic_auth');
  const htpasswdFile = b.files.path(r, 'htpasswd_file', 'file');
  let htpasswd: Record<string, string> = {};
  if (htpasswdFile !== null) {
    const parsed = parseHtpasswd(readFileSync(htpasswdFile, 'utf8'));
    for (const problem of parsed.problems) {
      b.scope.diags.error('Invalid htpasswd file', `${htpasswdFile}:${problem.line}: ${problem.message}.`, r.attr('htpasswd_file')?.expr.range);
    }
    htpasswd = parsed.entries;
  }
  const customLogFields = logFields(r, []);
  return {
    kind: 'basic_auth',
    label,
    range: headerRange(block),
    user: r.value<string>('user') ?? '',
    password: r.value<string>('password') ?? '',
    htpasswdFile,
    htpasswd,
    realm: r.value<string>('realm') ?? '',
    customLogFields,
    errorHandlers: buildErrorHandlers(block.body.blocks, customLogFields, b.scope, b.backends),
  };
}

function buildJwt(block: Block, label: string, b: Builders): { control: JwtConfig; profile: SigningProfileConfig | null } {
  const { scope } = b;
  const r = scope.reader(block.body, 'jwt');
  const range = headerRange(block);
  const algorithm = readAlgorithm(r, scope);
  const key = readKey(r, b, 'key', 'key_file');
  const jwksUrl = r.value<string>('jwks_url') ?? null;
  let jwks: JwksConfig | null = null;
  if (jwksUrl !== null) {
    if (key !== null) scope.diags.error('Conflicting attributes', 'A jwt block verifies with either a fixed key (key, key_file) or a key set (jwks_url), not both.', r.attr('jwks_url')?.expr.range);
    jwks = readJwks(block, r, jwksUrl, b);
  } else if (key === null) {
    if (!r.has('key') && !r.has('key_file')) scope.diags.error('Missing key', `The jwt ${JSON.stringify(label)} has no key to verify tokens with: set key, key_file or jwks_url.`, range);
  } else if (algorithm === null) {
    if (!r.has('signature_algorithm')) scope.diags.error('Missing required argument', 'A jwt with key or key_file needs signature_algorithm (one of ' + JWT_ALGORITHMS.join(', ') + ').', range);
  } else {
    checkVerificationKey(key, algorithm, r, scope);
  }
  if (r.has('backend') && jwksUrl === null) scope.diags.error('Unexpected attribute', 'backend is used for key set requests: it needs jwks_url.', r.attr('backend')?.expr.range);
  const customLogFields = logFields(r, []);
  const control: JwtConfig = {
    kind: 'jwt',
    label,
    range,
    source: readSource(r, scope),
    algorithm: jwks ? null : algorithm,
    key: jwks ? null : key,
    jwks,
    claims: r.dyn<JsonObject>('claims') ?? null,
    requiredClaims: r.value<string[]>('required_claims') ?? [],
    permissionsClaim: r.value<string>('beta_permissions_claim') ?? null,
    permissionsMap: readPermissionMap(r, 'beta_permissions_map', scope),
    rolesClaim: r.value<string>('beta_roles_claim') ?? null,
    rolesMap: readPermissionMap(r, 'beta_roles_map', scope),
    disablePrivateCaching: r.value<boolean>('disable_private_caching') ?? false,
    customLogFields,
    errorHandlers: buildErrorHandlers(block.body.blocks, customLogFields, scope, b.backends),
  };
  return { control, profile: jwtSigningProfile(r, label, range, algorithm, key, control, b) };
}

/** A jwt with signing_ttl signs too: HS* with its key, RS* and ES* with signing_key(_file). */
function jwtSigningProfile(r: AttrReader, label: string, range: Range, algorithm: JwtAlgorithm | null, key: string | null, control: JwtConfig, b: Builders): SigningProfileConfig | null {
  const ttl = r.value<number>('signing_ttl');
  const signingKey = readKey(r, b, 'signing_key', 'signing_key_file');
  if (ttl === undefined) {
    if (signingKey !== null) b.scope.diags.error('Missing required argument', 'signing_key is used by jwt_sign, which needs signing_ttl on this jwt block.', r.attr('signing_key')?.expr.range ?? r.attr('signing_key_file')?.expr.range);
    return null;
  }
  if (algorithm === null) {
    if (!r.has('signature_algorithm')) b.scope.diags.error('Missing required argument', 'A jwt with signing_ttl needs signature_algorithm.', range);
    return null;
  }
  const hmac = algorithm.startsWith('HS');
  const material = hmac ? key : signingKey;
  if (material === null) {
    if (hmac ? !r.has('key') && !r.has('key_file') : !r.has('signing_key') && !r.has('signing_key_file')) {
      b.scope.diags.error('Missing required argument', hmac ? `jwt_sign with ${algorithm} signs with key or key_file: set one.` : `jwt_sign with ${algorithm} signs with signing_key or signing_key_file (a PEM private key): set one.`, r.attr('signing_ttl')?.expr.range);
    }
    return null;
  }
  const profile: SigningProfileConfig = { label, range, origin: 'jwt', algorithm, key: material, ttl, claims: control.claims, headers: {} };
  return checkSigner(profile, r, hmac ? 'key' : 'signing_key', b.scope) ? profile : null;
}

function buildSigningProfile(block: Block, label: string, b: Builders): SigningProfileConfig | null {
  const r = b.scope.reader(block.body, 'jwt_signing_profile');
  const range = headerRange(block);
  const algorithm = readAlgorithm(r, b.scope);
  const key = readKey(r, b, 'key', 'key_file');
  if (key === null && !r.has('key') && !r.has('key_file')) b.scope.diags.error('Missing key', `The jwt_signing_profile ${JSON.stringify(label)} needs key or key_file.`, range);
  const headers = r.value<JsonObject>('headers') ?? {};
  for (const name of ['alg', 'typ']) {
    if (Object.hasOwn(headers, name)) b.scope.diags.error('Invalid attribute value', `Invalid value for attribute "headers": "${name}" is set by the gateway and cannot be given.`, r.attr('headers')?.expr.range);
  }
  if (algorithm === null || key === null) return null;
  const profile: SigningProfileConfig = { label, range, origin: 'jwt_signing_profile', algorithm, key, ttl: r.value<number>('ttl') ?? null, claims: r.dyn<JsonObject>('claims') ?? null, headers };
  return checkSigner(profile, r, 'key', b.scope) ? profile : null;
}

function checkSigner(profile: SigningProfileConfig, r: AttrReader, keyAttr: string, scope: LoadScope): boolean {
  try {
    createSigner(profile);
    return true;
  } catch (error) {
    const at = r.attr(keyAttr)?.expr.range ?? r.attr(`${keyAttr}_file`)?.expr.range ?? profile.range;
    scope.diags.error('Invalid signing key', `The ${keyAttr} cannot sign ${profile.algorithm} tokens: ${error instanceof Error ? error.message : String(error)}.`, at);
    return false;
  }
}

function readAlgorithm(r: AttrReader, scope: LoadScope): JwtAlgorithm | null {
  const value = r.value<string>('signature_algorithm');
  if (value === undefined) return null;
  if ((JWT_ALGORITHMS as readonly string[]).includes(value)) return value as JwtAlgorithm;
  scope.diags.error('Unsupported signature_algorithm', `${JSON.stringify(value)} is not supported; use one of ${JWT_ALGORITHMS.join(', ')}.`, r.attr('signature_algorithm')?.expr.range);
  return null;
}

/** The key from the attribute, or the content of the file attribute; not both. */
function readKey(r: AttrReader, b: Builders, attr: string, fileAttr: string): string | null {
  if (r.has(attr) && r.has(fileAttr)) {
    b.scope.diags.error('Conflicting attributes', `Set either ${attr} or ${fileAttr}, not both.`, r.attr(fileAttr)?.expr.range);
    return null;
  }
  const inline = r.value<string>(attr);
  if (inline !== undefined) {
    if (inline === '') b.scope.diags.error('Invalid attribute value', `Invalid value for attribute "${attr}": the key is empty.`, r.attr(attr)?.expr.range);
    return inline === '' ? null : inline;
  }
  const path = b.files.path(r, fileAttr, 'file');
  if (path === null) return null;
  const text = readFileSync(path, 'utf8');
  if (text.trim() === '') {
    b.scope.diags.error('Invalid key file', `The ${fileAttr} ${JSON.stringify(path)} is empty.`, r.attr(fileAttr)?.expr.range);
    return null;
  }
  return text;
}

function checkVerificationKey(key: string, algorithm: JwtAlgorithm, r: AttrReader, scope: LoadScope): void {
  if (algorithm.startsWith('HS')) return;
  const at = r.attr('key')?.expr.range ?? r.attr('key_file')?.expr.range;
  let parsed: KeyObject;
  try {
    parsed = createPublicKey(key);
  } catch (error) {
    scope.diags.error('Invalid key', `The key for ${algorithm} must be a PEM public key (SPKI or PKCS#1) or certificate: ${error instanceof Error ? error.message : String(error)}.`, at);
    return;
  }
  const problem = keyMismatch(parsed, algorithm);
  if (problem !== null) scope.diags.error('Invalid key', `The key does not fit ${algorithm}: ${problem}.`, at);
}

function keyMismatch(key: KeyObject, algorithm: JwtAlgorithm): string | null {
  const type = key.asymmetricKeyType;
  if (algorithm.startsWith('RS')) return type === 'rsa' ? null : `an RSA key is needed, got ${type ?? 'an unknown key type'}`;
  if (type !== 'ec') return `an EC key is needed, got ${type ?? 'an unknown key type'}`;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return curve === EC_CURVES[algorithm] ? null : `${algorithm} needs the curve ${EC_CURVES[algorithm]}, got ${curve ?? 'unknown'}`;
}

/** header, cookie and token_value exclude each other; none means the Authorization header (Bearer). */
function readSource(r: AttrReader, scope: LoadScope): JwtSource {
  const given = ['header', 'cookie', 'token_value'].filter((name) => r.has(name));
  if (given.length > 1) {
    scope.diags.error('Conflicting attributes', `Only one of header, cookie or token_value may be set; got ${given.join(' and ')}.`, r.attr(given[1] as string)?.expr.range);
  }
  const header = r.value<string>('header');
  if (header !== undefined) {
    if (header.trim() === '') scope.diags.error('Invalid attribute value', 'Invalid value for attribute "header": the header name is empty.', r.attr('header')?.expr.range);
    return { kind: 'header', name: header.trim().toLowerCase() };
  }
  const cookie = r.value<string>('cookie');
  if (cookie !== undefined) {
    if (cookie.trim() === '') scope.diags.error('Invalid attribute value', 'Invalid value for attribute "cookie": the cookie name is empty.', r.attr('cookie')?.expr.range);
    return { kind: 'cookie', name: cookie.trim() };
  }
  const value = r.dyn<string>('token_value');
  if (value !== undefined) return { kind: 'value', value };
  return { kind: 'header', name: 'authorization' };
}

function readJwks(block: Block, r: AttrReader, url: string, b: Builders): JwksConfig | null {
  const { scope } = b;
  const at = r.attr('jwks_url')?.expr.range;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    scope.diags.error('Invalid attribute value', `Invalid value for attribute "jwks_url": ${JSON.stringify(url)} is not an absolute URL.`, at);
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    scope.diags.error('Invalid attribute value', `Invalid value for attribute "jwks_url": the scheme must be http or https, got ${JSON.stringify(parsed.protocol)}.`, at);
    return null;
  }
  const inline = block.body.blocks.find((c) => c.type === 'backend');
  const reference = r.value<string>('backend');
  let backend: string;
  if (inline && reference !== undefined) {
    scope.diags.error('Conflicting attributes', 'Set either the backend attribute or a backend block, not both.', r.attr('backend')?.expr.range);
    return null;
  } else if (reference !== undefined) {
    if (!b.backends.isDefined(reference)) {
      scope.diags.error('Undefined backend', `The backend ${JSON.stringify(reference)} is not defined in definitions.`, r.attr('backend')?.expr.range);
      return null;
    }
    backend = reference;
  } else if (inline) {
    backend = b.backends.inline(inline);
  } else {
    backend = b.backends.fromUrl(block, parsed.origin);
  }
  checkOnBackendOrigin(r, b, backend, parsed, 'jwks_url');
  return { url: parsed.href, backend, ttl: r.value<number>('jwks_ttl') ?? HOUR, maxStale: r.value<number>('jwks_max_stale') ?? HOUR };
}

/** beta_permissions_map / beta_roles_map: each value a list of strings, or one space-separated string. */
function readPermissionMap(r: AttrReader, name: string, scope: LoadScope): Record<string, string[]> | null {
  const value = r.value<Record<string, PlainValue>>(name);
  if (value === undefined) return null;
  const out: Record<string, string[]> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string') out[key] = item.split(/\s+/).filter((p) => p !== '');
    else if (Array.isArray(item) && item.every((p) => typeof p === 'string')) out[key] = item as string[];
    else {
      scope.diags.error('Incorrect attribute value type', `Inappropriate value for attribute "${name}": element ${JSON.stringify(key)}: a list of strings (or a space-separated string) is required.`, r.attr(name)?.expr.range);
      return null;
    }
  }
  return out;
}
