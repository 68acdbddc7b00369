/**
 * Every block and attribute of the gateway's configuration language (../shared/spec/gateway.md),
 * as data: the structural checks and the model builder both read it, so a new attribute is
 * one line here.
 */

/** How an attribute's value is checked once evaluated. */
export type AttrType =
  | 'string'
  | 'bool'
  | 'number'
  | 'integer'
  /** The status of a final answer: a whole number from 200 to 599. */
  | 'status'
  | 'duration'
  | 'size'
  | 'stringList'
  | 'stringOrList'
  | 'numberList'
  | 'object'
  | 'stringMap'
  /** Header/query/form modifier maps: values are a string, a list of strings, or null. */
  | 'modifierMap'
  | 'any';

export interface AttrSpec {
  type: AttrType;
  required?: boolean;
  /**
   * May read request-time variables (request, backend_responses, ...) and call per-request
   * functions; such an expression is kept for the runtime. Without it, the attribute is
   * read once at load and may use only `env` and `gateway`.
   */
  perRequest?: boolean;
}

export type LabelRule = { kind: 'none' } | { kind: 'optional'; name: string } | { kind: 'required'; name: string } | { kind: 'any' };

export interface BlockSpec {
  labels: LabelRule;
  attributes: Record<string, AttrSpec>;
  /** Nested block types allowed here, by name of a spec in BLOCKS. */
  blocks: readonly string[];
  /** Set for blocks the spec defines that this build does not serve yet: loading refuses them with this reason. */
  unsupported?: string;
  /** A one-line block `x { a = 1 }` may not contain nested blocks; every block type follows that rule. */
}

const s = (type: AttrType, required = false): AttrSpec => (required ? { type, required } : { type });
/** An attribute evaluated per request when it reads request-time variables. */
const r = (type: AttrType): AttrSpec => ({ type, perRequest: true });

const REQUEST_HEADER_MODIFIERS = { remove_request_headers: r('stringList'), set_request_headers: r('modifierMap'), add_request_headers: r('modifierMap') };
const RESPONSE_HEADER_MODIFIERS = { remove_response_headers: r('stringList'), set_response_headers: r('modifierMap'), add_response_headers: r('modifierMap') };
const QUERY_MODIFIERS = { remove_query_params: r('stringList'), set_query_params: r('modifierMap'), add_query_params: r('modifierMap') };
const FORM_MODIFIERS = { remove_form_params: r('stringList'), set_form_params: r('modifierMap'), add_form_params: r('modifierMap') };
const STATUS_MODIFIER = { set_response_status: r('status') };
/** Modifiers of the endpoint, proxy, backend and error_handler contexts (status: not in proxy). */
const UPSTREAM_MODIFIERS = { ...REQUEST_HEADER_MODIFIERS, ...RESPONSE_HEADER_MODIFIERS, ...QUERY_MODIFIERS, ...FORM_MODIFIERS };

const ACCESS = { access_control: s('stringList'), disable_access_control: s('stringList') };
const LOG = { custom_log_fields: r('object') };
/** What a client of an authorization server sends; shared by beta_oauth2, oidc and backend oauth2. */
const OAUTH2_CLIENT = { client_id: s('string', true), client_secret: s('string', true), scope: s('string'), token_endpoint_auth_method: s('string') };

export const BLOCKS: Record<string, BlockSpec> = {
  root: { labels: { kind: 'none' }, attributes: {}, blocks: ['server', 'definitions', 'settings', 'defaults'] },
  server: {
    labels: { kind: 'optional', name: 'name' },
    attributes: { base_path: s('string'), hosts: s('stringList'), error_file: s('string'), ...ACCESS, ...LOG, ...RESPONSE_HEADER_MODIFIERS },
    blocks: ['cors', 'files', 'spa', 'api', 'endpoint'],
  },
  files: {
    labels: { kind: 'optional', name: 'name' },
    attributes: {
      base_path: s('string'),
      document_root: s('string', true),
      error_file: s('string'),
      ...ACCESS,
      ...LOG,
      ...RESPONSE_HEADER_MODIFIERS,
    },
    blocks: ['cors'],
  },
  spa: {
    labels: { kind: 'optional', name: 'name' },
    attributes: { base_path: s('string'), bootstrap_file: s('string', true), paths: s('stringList', true), ...ACCESS, ...LOG, ...RESPONSE_HEADER_MODIFIERS },
    blocks: ['cors'],
  },
  api: {
    labels: { kind: 'optional', name: 'name' },
    attributes: {
      base_path: s('string'),
      error_file: s('string'),
      allowed_methods: s('stringList'),
      beta_required_permission: r('any'),
      ...ACCESS,
      ...LOG,
      ...RESPONSE_HEADER_MODIFIERS,
    },
    blocks: ['endpoint', 'cors', 'error_handler'],
  },
  endpoint: {
    labels: { kind: 'required', name: 'pattern' },
    attributes: {
      request_body_limit: s('size'),
      allowed_methods: s('stringList'),
      beta_required_permission: r('any'),
      ...ACCESS,
      ...LOG,
      ...UPSTREAM_MODIFIERS,
      ...STATUS_MODIFIER,
    },
    blocks: ['proxy', 'request', 'response', 'error_handler'],
  },
  proxy: {
    labels: { kind: 'optional', name: 'name' },
    attributes: { backend: s('string'), expected_status: s('numberList'), url: r('string'), websockets: s('bool'), ...UPSTREAM_MODIFIERS },
    blocks: ['backend', 'websockets'],
  },
  request: {
    labels: { kind: 'optional', name: 'name' },
    attributes: {
      backend: s('string'),
      body: r('string'),
      expected_status: s('numberList'),
      form_body: r('object'),
      headers: r('modifierMap'),
      json_body: r('any'),
      method: r('string'),
      query_params: r('modifierMap'),
      url: r('string'),
    },
    blocks: ['backend'],
  },
  response: {
    labels: { kind: 'none' },
    attributes: { body: r('string'), json_body: r('any'), status: r('status'), headers: r('modifierMap') },
    blocks: [],
  },
  definitions: {
    labels: { kind: 'none' },
    attributes: {},
    blocks: ['backend', 'basic_auth', 'jwt', 'jwt_signing_profile', 'saml', 'beta_oauth2', 'oidc'],
  },
  backend: {
    labels: { kind: 'optional', name: 'name' },
    attributes: {
      basic_auth: r('string'),
      hostname: r('string'),
      origin: s('string', true),
      path: r('string'),
      path_prefix: r('string'),
      connect_timeout: s('duration'),
      disable_certificate_validation: s('bool'),
      disable_connection_reuse: s('bool'),
      http2: s('bool'),
      max_connections: s('integer'),
      proxy: s('string'),
      timeout: s('duration'),
      ttfb_timeout: s('duration'),
      use_when_unhealthy: s('bool'),
      ca_file: s('string'),
      no_proxy_from_env: s('bool'),
      ...LOG,
      ...UPSTREAM_MODIFIERS,
      ...STATUS_MODIFIER,
    },
    blocks: ['openapi', 'oauth2', 'beta_health'],
  },
  openapi: {
    labels: { kind: 'none' },
    attributes: { file: s('string', true), ignore_request_violations: s('bool'), ignore_response_violations: s('bool') },
    blocks: [],
  },
  oauth2: {
    labels: { kind: 'none' },
    attributes: { backend: s('string'), grant_type: s('string', true), token_endpoint: s('string', true), retries: s('integer'), ...OAUTH2_CLIENT },
    blocks: ['backend'],
  },
  beta_health: {
    labels: { kind: 'none' },
    attributes: {
      expected_status: s('numberList'),
      expected_text: s('string'),
      failure_threshold: s('integer'),
      headers: s('stringMap'),
      interval: s('duration'),
      path: s('string'),
      timeout: s('duration'),
    },
    blocks: [],
  },
  websockets: {
    labels: { kind: 'none' },
    attributes: { timeout: s('duration'), ...REQUEST_HEADER_MODIFIERS, ...RESPONSE_HEADER_MODIFIERS },
    blocks: [],
  },
  cors: {
    labels: { kind: 'none' },
    attributes: { allowed_origins: s('stringOrList'), allow_credentials: s('bool'), disable: s('bool'), max_age: s('duration') },
    blocks: [],
  },
  error_handler: {
    labels: { kind: 'any' },
    attributes: { ...LOG, ...UPSTREAM_MODIFIERS, ...STATUS_MODIFIER },
    blocks: ['proxy', 'request', 'response', 'error_handler'],
  },
  settings: {
    labels: { kind: 'none' },
    attributes: {
      accept_forwarded_url: s('stringList'),
      default_port: s('integer'),
      health_path: s('string'),
      https_dev_proxy: s('stringList'),
      log_format: s('string'),
      log_level: s('string'),
      log_pretty: s('bool'),
      no_proxy_from_env: s('bool'),
      request_id_accept_from_header: s('string'),
      request_id_backend_header: s('string'),
      request_id_client_header: s('string'),
      request_id_format: s('string'),
      secure_cookies: s('string'),
      xfh: s('bool'),
      beta_metrics: s('bool'),
      beta_metrics_port: s('integer'),
      beta_service_name: s('string'),
      ca_file: s('string'),
    },
    blocks: [],
  },
  defaults: { labels: { kind: 'none' }, attributes: { environment_variables: s('stringMap') }, blocks: [] },
  basic_auth: {
    labels: { kind: 'required', name: 'name' },
    attributes: { user: s('string'), password: s('string'), htpasswd_file: s('string'), realm: s('string'), ...LOG },
    blocks: ['error_handler'],
  },
  jwt: {
    labels: { kind: 'required', name: 'name' },
    attributes: {
      cookie: s('string'),
      header: s('string'),
      token_value: r('string'),
      key: s('string'),
      key_file: s('string'),
      signature_algorithm: s('string'),
      claims: r('object'),
      required_claims: s('stringList'),
      beta_permissions_claim: s('string'),
      beta_permissions_map: s('object'),
      beta_roles_claim: s('string'),
      beta_roles_map: s('object'),
      jwks_url: s('string'),
      jwks_ttl: s('duration'),
      jwks_max_stale: s('duration'),
      backend: s('string'),
      disable_private_caching: s('bool'),
      signing_key: s('string'),
      signing_key_file: s('string'),
      signing_ttl: s('duration'),
      ...LOG,
    },
    blocks: ['backend', 'error_handler'],
  },
  jwt_signing_profile: {
    labels: { kind: 'required', name: 'name' },
    attributes: { key: s('string'), key_file: s('string'), signature_algorithm: s('string', true), ttl: s('duration'), claims: r('object'), headers: s('object') },
    blocks: [],
  },
  saml: {
    labels: { kind: 'required', name: 'name' },
    attributes: { idp_metadata_file: s('string', true), sp_acs_url: s('string', true), sp_entity_id: s('string', true), array_attributes: s('stringList'), ...LOG },
    blocks: ['error_handler'],
  },
  beta_oauth2: {
    labels: { kind: 'required', name: 'name' },
    attributes: {
      backend: s('string'),
      authorization_endpoint: s('string', true),
      token_endpoint: s('string', true),
      redirect_uri: s('string', true),
      grant_type: s('string', true),
      verifier_method: s('string', true),
      verifier_value: { type: 'string', required: true, perRequest: true },
      ...OAUTH2_CLIENT,
      ...LOG,
    },
    blocks: ['backend', 'error_handler'],
  },
  oidc: {
    labels: { kind: 'required', name: 'name' },
    attributes: {
      backend: s('string'),
      configuration_url: s('string', true),
      configuration_ttl: s('duration'),
      configuration_max_stale: s('duration'),
      redirect_uri: s('string', true),
      verifier_method: s('string'),
      verifier_value: { type: 'string', required: true, perRequest: true },
      jwks_ttl: s('duration'),
      jwks_max_stale: s('duration'),
      configuration_backend: s('string'),
      jwks_uri_backend: s('string'),
      token_backend: s('string'),
      userinfo_backend: s('string'),
      ...OAUTH2_CLIENT,
      ...LOG,
    },
    blocks: ['backend', 'error_handler'],
  },
};

/** Where a backend block needs a label: only in definitions (elsewhere it is anonymous). */
export function backendLabelRule(parent: string): LabelRule {
  return parent === 'definitions' ? { kind: 'required', name: 'name' } : { kind: 'none' };
}
