// Plain data the control API returns for `config` and `backends`; the consoles import these
// through AppRouter, so no Node types here.
import type { SourceExcerpt } from '../../hcl/excerpt.js';

export type { SourceExcerpt } from '../../hcl/excerpt.js';

/** What started a reload: the first load, a saved file, SIGHUP, or the control API. */
export type ReloadTrigger = 'start' | 'file' | 'signal' | 'control';

/** `applied`: serving now; `rejected`: the files do not load (diagnostics); `failed`: building the new runtime threw. */
export type ReloadOutcome = 'applied' | 'rejected' | 'failed';

export interface ReloadDiagnostic {
  severity: 'error' | 'warning';
  /** Null for problems without a position (an unreadable file, a missing server block). */
  file: string | null;
  line: number | null;
  column: number | null;
  /** Where the problem's range ends (exclusive); the daemon always sets it (optional for hand-made records, e.g. test fixtures). */
  endLine?: number | null;
  endColumn?: number | null;
  summary: string;
  detail: string;
  /** The whole line as `portico config check` prints it: `file:line,col-col: summary; detail`. */
  text: string;
  /**
   * The file's lines around the problem as they were loaded — for a rejected save the text as
   * saved, not the one still serving — with secret values as `"***"`: the line before, the
   * problem's line, the line after, never more of the file. Null without a position, and past
   * the first 50 problems of one load. The daemon always sets it (optional for hand-made records).
   */
  excerpt?: SourceExcerpt | null;
}

export interface NameChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** What a reload changed against the configuration serving before it. */
export interface ReloadDiff {
  servers: NameChanges;
  endpoints: NameChanges;
  backends: NameChanges;
  /** Configuration and referenced files whose content changed. */
  files: string[];
  /** True when nothing above changed. */
  unchanged: boolean;
  /** One line, e.g. `+2 endpoints (/a, /b), ~1 backend (api)`, or `unchanged`. */
  summary: string;
}

export interface SourceHash {
  path: string;
  sha256: string;
}

export interface ReloadRecord {
  /** `<instance>:<seq>`; resume `config.changes` from it. */
  id: string;
  trigger: ReloadTrigger;
  /** ISO time. */
  startedAt: string;
  durationMs: number;
  result: ReloadOutcome;
  diagnostics: ReloadDiagnostic[];
  /** Null unless applied. */
  diff: ReloadDiff | null;
  /** Why `apply` failed (`failed` only). */
  error: string | null;
  /** The configuration files read, with the SHA-256 of their bytes. */
  sources: SourceHash[];
}

export interface ConfigStatus {
  /** The files of the configuration serving now (empty before the first applied load). */
  files: SourceHash[];
  /** ISO time the serving configuration was applied. */
  appliedAt: string | null;
  last: ReloadRecord | null;
  /** What is being watched for changes (configuration files, their directories, referenced files). */
  watching: string[];
}

export interface ActiveConfigFile {
  path: string;
  sha256: string;
  /** The applied source with every secret value replaced by `"***"`; null when it could not be shown safely. */
  text: string | null;
  /** Why `text` is null. */
  note: string | null;
  /** How many values were hidden. */
  redacted: number;
}

export interface ValidationResult {
  ok: boolean;
  /** The file the candidate stood for (or `<candidate>` when loaded alone). */
  file: string;
  diagnostics: ReloadDiagnostic[];
  /** What applying it would change against the serving configuration (null when it does not load). */
  diff: ReloadDiff | null;
}

export type BackendState = 'unknown' | 'healthy' | 'degraded' | 'unhealthy';

export interface BackendHealthView {
  state: BackendState;
  lastCheckAt: string | null;
  failures: number;
  latencyMs: number | null;
  error: string;
  /** False for backends without beta_health (never checked). */
  checked: boolean;
  since: string | null;
}

export interface BackendView {
  name: string;
  /** `scheme://host[:port]`, or null when the url is evaluated per request. */
  origin: string | null;
  anonymous: boolean;
  useWhenUnhealthy: boolean;
  health: BackendHealthView;
  /** `<path>` of every endpoint (and error handler's endpoint) with a proxy or request on it. */
  usedBy: string[];
}

export interface BackendHealthChangeView {
  backend: string;
  from: BackendState;
  to: BackendState;
  at: string;
  error: string;
}

/** One `backends.changes` message: a finished check (change null) or a state change. */
export interface BackendUpdate {
  /** `<instance>:<seq>`. */
  id: string;
  backend: string;
  health: BackendHealthView;
  change: BackendHealthChangeView | null;
}

/** An access control of the serving configuration as the consoles show it (never its key, password or users). */
export interface AccessControlView {
  label: string;
  kind: AccessControlKind;
  /** One line: where the credentials come from and what checks them, e.g. `Authorization bearer, HS256 key` or `htpasswd file, realm "ops"`. */
  detail: string;
  /** Login controls (beta_oauth2, oidc, saml): the provider and its last failure; null for the others. */
  login: LoginView | null;
}

export type AccessControlKind = 'basic_auth' | 'jwt' | 'beta_oauth2' | 'oidc' | 'saml';

/** A login control's provider as the consoles show it. */
export interface LoginView {
  /** The authorization server's origin, the OpenID configuration URL, or the SAML IdP's entity id. */
  provider: string;
  /** The last failure at the provider (discovery, token, userinfo, a refused assertion); null when the last attempt worked. */
  lastError: string | null;
  /** ISO time of lastError. */
  lastErrorAt: string | null;
  /** oidc: ISO time the configuration in use was fetched; null before the first fetch or for other kinds. */
  configurationFetchedAt: string | null;
  /** oidc: a refresh failed and the cached configuration still serves. */
  usingCachedConfiguration: boolean;
}

/** A route of the serving configuration with what guards it after inheritance and disable_access_control. */
export interface RouteView {
  server: string | null;
  /** `unrouted`: the paths under a protected api's base path that no route takes (404 once its guards pass). */
  kind: 'endpoint' | 'files' | 'spa' | 'unrouted';
  /** Path pattern after joining base paths, e.g. `/api/v1/**`. */
  path: string;
  methods: string[];
  /** The access controls that run, in order; empty for an open route. */
  guards: { label: string; kind: AccessControlKind }[];
  /** `beta_required_permission`: a string, per-method strings, `expression` when computed per request, null when none. */
  permission: string | Record<string, string> | 'expression' | null;
}

export interface RoutesView {
  routes: RouteView[];
  accessControls: AccessControlView[];
}
