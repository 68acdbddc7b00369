/**
 * The loaded gateway configuration: plain readonly data, deep-frozen by the loader, so a
 * reload builds a new one and swaps it. Values known at load are typed and converted
 * (durations in milliseconds, sizes in bytes, hosts as host:port); values that depend on
 * the request keep their expression for the runtime to evaluate.
 */
import type { Expression, PlainValue, Range } from '../../hcl/index.js';

/** An attribute evaluated at load (`static`) or kept for per-request evaluation (`expr`). */
export type Dyn<T> = { readonly kind: 'static'; readonly value: T } | { readonly kind: 'expr'; readonly expr: Expression };

export type JsonValue = PlainValue;
export type JsonObject = Readonly<Record<string, JsonValue>>;

/** Header, query and form modifier values: one string, several, or null (remove). */
export type ModifierValue = string | readonly string[] | null;
export type ModifierMap = Readonly<Record<string, ModifierValue>>;

export interface Modifiers {
  readonly removeRequestHeaders: Dyn<readonly string[]> | null;
  readonly setRequestHeaders: Dyn<ModifierMap> | null;
  readonly addRequestHeaders: Dyn<ModifierMap> | null;
  readonly removeResponseHeaders: Dyn<readonly string[]> | null;
  readonly setResponseHeaders: Dyn<ModifierMap> | null;
  readonly addResponseHeaders: Dyn<ModifierMap> | null;
  readonly removeQueryParams: Dyn<readonly string[]> | null;
  readonly setQueryParams: Dyn<ModifierMap> | null;
  readonly addQueryParams: Dyn<ModifierMap> | null;
  readonly removeFormParams: Dyn<readonly string[]> | null;
  readonly setFormParams: Dyn<ModifierMap> | null;
  readonly addFormParams: Dyn<ModifierMap> | null;
  readonly setResponseStatus: Dyn<number> | null;
}

export type LogLevel = 'panic' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** One `https_dev_proxy` entry `"<tls port>:<plain port>"`: TLS on the first port serving what the plain port serves. */
export interface DevProxyPort {
  readonly tlsPort: number;
  readonly plainPort: number;
  readonly range: Range;
}

export interface Settings {
  readonly acceptForwardedUrl: readonly ('proto' | 'host' | 'port')[];
  readonly defaultPort: number;
  readonly healthPath: string;
  /** `https_dev_proxy` entries, in order. */
  readonly httpsDevProxy: readonly DevProxyPort[];
  readonly logFormat: 'common' | 'json';
  readonly logLevel: LogLevel;
  readonly logPretty: boolean;
  readonly noProxyFromEnv: boolean;
  readonly requestIdAcceptFromHeader: string;
  readonly requestIdBackendHeader: string;
  readonly requestIdClientHeader: string;
  readonly requestIdFormat: 'common' | 'uuid4';
  readonly secureCookies: '' | 'strip';
  readonly xfh: boolean;
  readonly betaMetrics: boolean;
  readonly betaMetricsPort: number;
  readonly betaServiceName: string;
  /** Absolute path, or null. */
  readonly caFile: string | null;
}

/** `access_control` / `disable_access_control` as written here, and what applies after inheritance. */
export interface AccessControl {
  readonly accessControl: readonly string[];
  readonly disableAccessControl: readonly string[];
  /** Inherited labels plus this block's, minus every label disabled here or above. */
  readonly effective: readonly string[];
}

/** `custom_log_fields` from the outermost block to this one; the runtime merges them in order (inner keys win). */
export type CustomLogFields = readonly Dyn<JsonObject>[];

export interface HostPort {
  /** `*` or a lower-case host name. */
  readonly host: string;
  readonly port: number;
}

export interface CorsConfig {
  readonly range: Range;
  /** Empty when not set; `*` allows every origin. */
  readonly allowedOrigins: readonly string[];
  readonly allowCredentials: boolean;
  readonly disable: boolean;
  /** Milliseconds, or null when not set. */
  readonly maxAge: number | null;
}

export interface GatewayConfig {
  readonly version: string;
  readonly settings: Settings;
  /** `defaults.environment_variables` overlaid by the process environment, plus "" for every referenced but unset name. */
  readonly env: Readonly<Record<string, string>>;
  readonly servers: readonly ServerConfig[];
  /** Backends of `definitions` by label, then inline ones as `anonymous_<line>_<col>`. */
  readonly backends: Readonly<Record<string, BackendConfig>>;
  /** Absolute paths of every file the configuration reads (error_file, document_root, ...), for reload watchers. */
  readonly referencedFiles: readonly string[];
  /** The access controls of `definitions` (basic_auth, jwt) by label. */
  readonly accessControls: Readonly<Record<string, AccessControlConfig>>;
  /** What `jwt_sign(label, claims)` can sign with: `jwt_signing_profile` blocks and `jwt` blocks with `signing_ttl`, by label. */
  readonly signingProfiles: Readonly<Record<string, SigningProfileConfig>>;
}

export interface ServerConfig {
  readonly name: string | null;
  readonly range: Range;
  /** Normalised and de-duplicated, e.g. `*:8080`, `example.com:443`. */
  readonly hosts: readonly HostPort[];
  /** Always starts with `/`. */
  readonly basePath: string;
  readonly errorFile: string | null;
  readonly access: AccessControl;
  readonly customLogFields: CustomLogFields;
  /** Only the response header modifiers apply at server level. */
  readonly modifiers: Modifiers;
  readonly cors: CorsConfig | null;
  readonly files: readonly FilesConfig[];
  readonly spas: readonly SpaConfig[];
  readonly apis: readonly ApiConfig[];
  /** Endpoints directly in the server block. */
  readonly endpoints: readonly EndpointConfig[];
}

export interface FilesConfig {
  readonly name: string | null;
  readonly range: Range;
  /** Server and files base paths joined. */
  readonly basePath: string;
  /** Absolute path of an existing directory. */
  readonly documentRoot: string;
  readonly errorFile: string | null;
  readonly access: AccessControl;
  readonly customLogFields: CustomLogFields;
  readonly modifiers: Modifiers;
  readonly cors: CorsConfig | null;
}

export interface SpaConfig {
  readonly name: string | null;
  readonly range: Range;
  readonly basePath: string;
  /** Absolute path of a readable file. */
  readonly bootstrapFile: string;
  /** Each joined with the base path. */
  readonly paths: readonly string[];
  readonly access: AccessControl;
  readonly customLogFields: CustomLogFields;
  readonly modifiers: Modifiers;
  readonly cors: CorsConfig | null;
}

export type Permission = string | Readonly<Record<string, string>>;

export interface ApiConfig {
  readonly name: string | null;
  readonly range: Range;
  readonly basePath: string;
  readonly errorFile: string | null;
  readonly access: AccessControl;
  readonly allowedMethods: readonly string[];
  readonly requiredPermission: Dyn<Permission> | null;
  readonly customLogFields: CustomLogFields;
  readonly modifiers: Modifiers;
  readonly cors: CorsConfig | null;
  readonly errorHandlers: readonly ErrorHandlerConfig[];
  readonly endpoints: readonly EndpointConfig[];
}

/** What produces a response: an endpoint's body, and an error_handler's (the spec: "like an endpoint"). */
export interface HandlerBody {
  readonly customLogFields: CustomLogFields;
  readonly modifiers: Modifiers;
  readonly proxies: readonly ProxyConfig[];
  readonly requests: readonly RequestConfig[];
  readonly response: ResponseConfig | null;
  /**
   * Proxy and request names in stages: every block of a stage depends only on blocks of
   * earlier stages (via `backend_responses.<name>`), so a stage runs in parallel.
   */
  readonly stages: readonly (readonly string[])[];
  readonly errorHandlers: readonly ErrorHandlerConfig[];
}

export interface EndpointConfig extends HandlerBody {
  /** The label as written, e.g. `/users/{id}`. */
  readonly pattern: string;
  /** Server, api and endpoint paths joined, e.g. `/v1/users/{id}`. */
  readonly path: string;
  readonly range: Range;
  /** Upper case; `*` expanded to the seven standard methods. */
  readonly allowedMethods: readonly string[];
  /** Bytes. */
  readonly requestBodyLimit: number;
  readonly access: AccessControl;
  /** The endpoint's own, else the api's. */
  readonly requiredPermission: Dyn<Permission> | null;
}

export interface ProxyConfig {
  /** The label, or `default`. */
  readonly name: string;
  readonly range: Range;
  /** A key of `GatewayConfig.backends`. */
  readonly backend: string;
  readonly url: Dyn<string> | null;
  readonly expectedStatus: readonly number[] | null;
  /** `websockets = true` or a `websockets` block: upgrade requests are proxied as websockets; null when off. */
  readonly websockets: WebsocketsConfig | null;
  readonly modifiers: Modifiers;
  /** Names of the proxy/request blocks whose responses this one reads. */
  readonly dependsOn: readonly string[];
}

export interface WebsocketsConfig {
  readonly range: Range;
  /** Milliseconds from the upgrade until the connection is closed; null for no limit. */
  readonly timeout: number | null;
  /** Request and response header modifiers of the upgrade request and its 101 answer (the rest stay null). */
  readonly modifiers: Modifiers;
}

export interface RequestConfig {
  readonly name: string;
  readonly range: Range;
  readonly backend: string;
  readonly url: Dyn<string> | null;
  readonly method: Dyn<string>;
  readonly body: Dyn<string> | null;
  readonly jsonBody: Dyn<JsonValue> | null;
  readonly formBody: Dyn<JsonObject> | null;
  readonly headers: Dyn<ModifierMap> | null;
  readonly queryParams: Dyn<ModifierMap> | null;
  readonly expectedStatus: readonly number[] | null;
  readonly dependsOn: readonly string[];
}

export interface ResponseConfig {
  readonly range: Range;
  readonly status: Dyn<number>;
  readonly body: Dyn<string> | null;
  readonly jsonBody: Dyn<JsonValue> | null;
  readonly headers: Dyn<ModifierMap> | null;
}

export interface ErrorHandlerConfig extends HandlerBody {
  readonly range: Range;
  /** Error types handled; `*` when the block has no label. */
  readonly kinds: readonly string[];
}

export interface BackendConfig {
  readonly name: string;
  /** Inline (`backend {}` in a proxy/request, or only a url): named `anonymous_<line>_<col>`. */
  readonly anonymous: boolean;
  readonly range: Range;
  /** `scheme://host[:port]`; null for a url-only backend whose url is evaluated per request. */
  readonly origin: string | null;
  readonly hostname: Dyn<string> | null;
  readonly path: Dyn<string> | null;
  readonly pathPrefix: Dyn<string> | null;
  readonly basicAuth: Dyn<string> | null;
  /** Milliseconds. */
  readonly connectTimeout: number;
  readonly timeout: number;
  readonly ttfbTimeout: number;
  readonly disableCertificateValidation: boolean;
  readonly disableConnectionReuse: boolean;
  readonly http2: boolean;
  /** 0 means unlimited. */
  readonly maxConnections: number;
  readonly proxy: string | null;
  readonly useWhenUnhealthy: boolean;
  /** Overrides of the settings of the same name; null when not set here. */
  readonly caFile: string | null;
  readonly noProxyFromEnv: boolean | null;
  readonly customLogFields: CustomLogFields;
  readonly modifiers: Modifiers;
  readonly health: HealthConfig | null;
  /** `oauth2` (client credentials): a bearer token for every request to this backend. */
  readonly oauth2: BackendOAuth2Config | null;
  /** `openapi`: requests and responses validated against an OpenAPI 3 document. */
  readonly openapi: BackendOpenApiConfig | null;
}

/** `openapi` in a backend: the document as read at load (a reload reads it again). */
export interface BackendOpenApiConfig {
  readonly range: Range;
  /** Absolute path of the OpenAPI file. */
  readonly file: string;
  /** The `file` attribute's expression, where load errors about the document point. */
  readonly fileRange: Range;
  /** The parsed document (plain JSON values, `$ref`s unresolved). */
  readonly document: Readonly<Record<string, unknown>>;
  readonly ignoreRequestViolations: boolean;
  readonly ignoreResponseViolations: boolean;
}

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post';

/** How a client authenticates to an authorization server's token endpoint. */
export interface OAuth2Client {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authMethod: TokenEndpointAuthMethod;
  /** Space-separated; null when not set. */
  readonly scope: string | null;
}

/** `oauth2` in a backend: the client credentials grant. */
export interface BackendOAuth2Config {
  readonly range: Range;
  readonly tokenEndpoint: string;
  /** Where `token_endpoint` is written. */
  readonly tokenEndpointRange: Range;
  /** A key of `GatewayConfig.backends` for the token request. */
  readonly backend: string;
  readonly client: OAuth2Client;
  /** How often a 401 from the resource fetches a new token and retries. */
  readonly retries: number;
}

export interface HealthConfig {
  readonly expectedStatus: readonly number[];
  readonly expectedText: string | null;
  readonly failureThreshold: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Milliseconds. */
  readonly interval: number;
  readonly path: string | null;
  /** Milliseconds; never more than the interval. */
  readonly timeout: number;
}

// ---------------------------------------------------------------- access control

export type AccessControlConfig = BasicAuthConfig | JwtConfig | BetaOAuth2Config | OidcConfig | SamlConfig;

/** The kinds of access control that sign users in at a provider (they configure login URL functions). */
export type LoginControlConfig = BetaOAuth2Config | OidcConfig | SamlConfig;

interface AccessControlBase {
  readonly label: string;
  readonly range: Range;
  readonly errorHandlers: readonly ErrorHandlerConfig[];
  readonly customLogFields: CustomLogFields;
}

export interface BasicAuthConfig extends AccessControlBase {
  readonly kind: 'basic_auth';
  /** "" when not set. */
  readonly user: string;
  /** "" when not set: then only the htpasswd file can grant. */
  readonly password: string;
  /** Absolute path of the htpasswd file, read at load; null when not set. */
  readonly htpasswdFile: string | null;
  /** Entries of the htpasswd file: user name to hash (apr1, md5 or bcrypt). */
  readonly htpasswd: Readonly<Record<string, string>>;
  readonly realm: string;
}

export type JwtAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'HS256' | 'HS384' | 'HS512' | 'ES256' | 'ES384' | 'ES512';

/** Where a jwt reads its token: a header (Authorization implies the Bearer scheme), a cookie, or an expression. */
export type JwtSource =
  | { readonly kind: 'header'; /** lower case */ readonly name: string }
  | { readonly kind: 'cookie'; readonly name: string }
  | { readonly kind: 'value'; readonly value: Dyn<string> };

export interface JwksConfig {
  readonly url: string;
  /** A key of `GatewayConfig.backends`: the `backend` attribute or block, else an anonymous backend of the url's origin. */
  readonly backend: string;
  /** Milliseconds. */
  readonly ttl: number;
  readonly maxStale: number;
}

export interface JwtConfig extends AccessControlBase {
  readonly kind: 'jwt';
  readonly source: JwtSource;
  /** Null with jwks (each key names its algorithm). */
  readonly algorithm: JwtAlgorithm | null;
  /** The verification key: a PEM public key (or certificate) for RS and ES, the secret for HS; null with jwks. */
  readonly key: string | null;
  readonly jwks: JwksConfig | null;
  readonly claims: Dyn<JsonObject> | null;
  readonly requiredClaims: readonly string[];
  readonly permissionsClaim: string | null;
  /** Permission to further permissions, applied recursively. */
  readonly permissionsMap: Readonly<Record<string, readonly string[]>> | null;
  readonly rolesClaim: string | null;
  /** Role to permissions; `*` for roles not mapped. */
  readonly rolesMap: Readonly<Record<string, readonly string[]>> | null;
  readonly disablePrivateCaching: boolean;
}

/** beta_oauth2: the redirect endpoint of the authorization code grant. */
export interface BetaOAuth2Config extends AccessControlBase {
  readonly kind: 'beta_oauth2';
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  /** A key of `GatewayConfig.backends` for the token request. */
  readonly backend: string;
  /** As written: absolute, or relative to the origin of the request. */
  readonly redirectUri: string;
  readonly client: OAuth2Client;
  readonly verifierMethod: 'ccm_s256' | 'state';
  readonly verifierValue: Dyn<string>;
}

/** Backends of an oidc block by purpose (keys of `GatewayConfig.backends`). */
export interface OidcBackends {
  readonly configuration: string;
  readonly jwks: string;
  readonly token: string;
  readonly userinfo: string;
}

/** oidc: the redirect endpoint of an OpenID Connect authorization code flow. */
export interface OidcConfig extends AccessControlBase {
  readonly kind: 'oidc';
  readonly configurationUrl: string;
  /** Milliseconds. */
  readonly configurationTtl: number;
  readonly configurationMaxStale: number;
  readonly redirectUri: string;
  readonly client: OAuth2Client;
  /** Null: `ccm_s256` when the provider supports S256, else `nonce`. */
  readonly verifierMethod: 'ccm_s256' | 'nonce' | null;
  readonly verifierValue: Dyn<string>;
  /** Milliseconds. */
  readonly jwksTtl: number;
  readonly jwksMaxStale: number;
  readonly backends: OidcBackends;
}

/** saml: the Assertion Consumer Service endpoint of SAML 2.0 web browser SSO. */
export interface SamlConfig extends AccessControlBase {
  readonly kind: 'saml';
  /** Absolute path, read at load. */
  readonly idpMetadataFile: string;
  readonly idp: {
    readonly entityId: string;
    /** SingleSignOnService with the HTTP-Redirect binding. */
    readonly ssoUrl: string;
    /** PEM certificates the IdP signs with. */
    readonly certificates: readonly string[];
  };
  /** As written: absolute, or relative to the origin of the request. */
  readonly spAcsUrl: string;
  readonly spEntityId: string;
  readonly arrayAttributes: readonly string[];
}

/** A `jwt_signing_profile`, or a `jwt` block with `signing_ttl`, as `jwt_sign` uses it. */
export interface SigningProfileConfig {
  readonly label: string;
  readonly range: Range;
  readonly origin: 'jwt_signing_profile' | 'jwt';
  readonly algorithm: JwtAlgorithm;
  /** The secret for HS, a PEM private key for RS and ES. */
  readonly key: string;
  /** Milliseconds; null for tokens without `exp`. */
  readonly ttl: number | null;
  /** Default claims, evaluated per call; the claims given to jwt_sign win. */
  readonly claims: Dyn<JsonObject> | null;
  /** Extra header fields (never alg or typ). */
  readonly headers: JsonObject;
}
