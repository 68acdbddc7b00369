/**
 * The seams between the gateway's parts: HTTP front (gateway/http), endpoint execution
 * (gateway/endpoint, gateway/eval), backends and health (gateway/backend, gateway/health),
 * hot reload (gateway/reload), and their readers (control API, CDS). Each part codes against
 * these types and never reaches into another's internals.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { AccessControl, ApiConfig, BackendConfig, CustomLogFields, Dyn, EndpointConfig, GatewayConfig, Permission, ServerConfig } from './config/model.js';
import type { LoginStatus } from './access/access-check.js';
import type { RequestScope } from './eval/request-scope.js';
import type { AccessRecordInput } from './logs/access-record.js';
import type { BackendLogInput } from './backend/backend-log.js';

// ---------------------------------------------------------------- backends and health

/** `backends.<label>.health` as the spec defines it, plus what the consoles show. */
export interface BackendHealth {
  /** `healthy`; `degraded` after a failed check below the threshold; `unhealthy` at the threshold; `unknown` before the first check. */
  readonly state: 'unknown' | 'healthy' | 'degraded' | 'unhealthy';
  /** False only when unhealthy. */
  readonly healthy: boolean;
  /** Why the last check failed; "" when it passed. */
  readonly error: string;
  /** ISO time of the last finished check, or null. */
  readonly lastCheckAt: string | null;
  /** Consecutive failed checks. */
  readonly failures: number;
  /** Duration of the last check in ms, or null. */
  readonly latencyMs: number | null;
  /** ISO time the state last changed. */
  readonly since: string;
  /** False for backends without a beta_health block (always `healthy`, never checked). */
  readonly checked: boolean;
}

export interface HealthChange {
  readonly backend: string;
  readonly from: BackendHealth['state'];
  readonly to: BackendHealth['state'];
  readonly at: string;
  readonly error: string;
}

/**
 * One per daemon, living across reloads: `track(config)` starts checks for new backends,
 * stops removed ones and keeps the state of backends whose health check did not change.
 */
export interface HealthMonitor {
  track(config: GatewayConfig): void;
  stop(): Promise<void>;
  /** Every backend of the tracked config by label (anonymous ones included). */
  snapshot(): Readonly<Record<string, BackendHealth>>;
  /** Called after every finished check (state changed or not); returns an unsubscribe function. */
  onCheck(listener: (backend: string, health: BackendHealth) => void): () => void;
  /** Called on each state change; returns an unsubscribe function. */
  onChange(listener: (change: HealthChange) => void): () => void;
  /** The last state changes, oldest first (bounded, e.g. 200). */
  timeline(): readonly HealthChange[];
}

/**
 * A client request's cancellation (the client went away, the body timeout, the shutdown
 * deadline) without an AbortController per request: listeners are called once with the
 * reason; `signal` makes an AbortSignal that follows it for APIs that take one.
 */
export interface RequestCancel {
  /** The reason once cancelled, else null. */
  readonly reason: Error | null;
  /** Calls `listener` once when the request is cancelled (at once when it already is). */
  listen(listener: (reason: Error) => void): void;
  unlisten(listener: (reason: Error) => void): void;
  /** An AbortSignal aborted with the same reason; made on first use. */
  readonly signal: AbortSignal;
}

/** Request to a backend: the URL is final (origin, path, path_prefix and query applied). */
export interface BackendRequest {
  readonly method: string;
  readonly url: URL;
  /** Lower-case names. Hop-by-hop headers are dropped by the backend client. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** Streamed when a Readable; null for no body. */
  readonly body: Readable | Buffer | string | null;
  readonly signal: AbortSignal;
  /** The client request's cancellation; when given, followed instead of `signal` (which is then not read). */
  readonly cancel?: RequestCancel;
  /** For the backend log line. */
  readonly requestId: string;
  /** The proxy/request block name (`default`, ...) for the log line. */
  readonly handler: string;
  /**
   * The backend's `custom_log_fields`, evaluated by the caller. Called once when the backend
   * log line is written (after the response ended or failed), so it may read the response.
   */
  readonly customLogFields?: (response: BackendResponseHead | null) => Readonly<Record<string, unknown>> | null;
}

/** Status and headers of a backend response, for what is evaluated after it (log fields). */
export interface BackendResponseHead {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
}

export interface BackendTimings {
  readonly dns: number | null;
  readonly tcp: number | null;
  readonly tls: number | null;
  readonly ttfb: number | null;
  readonly total: number | null;
}

export interface BackendResponse {
  readonly status: number;
  /** Lower-case names, no hop-by-hop header (the exchange drops them); `set-cookie` always an array. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** Streamed; the reader must consume or destroy it. */
  readonly body: Readable;
  /**
   * The whole body, when it was small and of known length so it was read before the response
   * was given; `body` then streams it (made only when read).
   */
  readonly buffered?: Buffer;
}

/** One backend's transport: its pool(s), timeouts, TLS, proxy and health gate. */
export interface BackendClient {
  readonly config: BackendConfig;
  /**
   * Sends the request; rejects with GatewayError `backend` (connection failure),
   * `backend_timeout` (connect/ttfb/total timeout) or `backend_unhealthy` (health gate,
   * unless use_when_unhealthy). Writes the backend log line when the response ends.
   */
  send(request: BackendRequest): Promise<BackendResponse>;
}

/** The backends of one configuration (built aside on reload; the daemon's HealthMonitor gates them). */
export interface BackendSet {
  get(name: string): BackendClient;
  readonly health: HealthMonitor;
  /** Closes the pools once their in-flight requests finish (called after a swap for the old set). */
  close(): Promise<void>;
}

// ---------------------------------------------------------------- logs

/** Receives gateway log records (the json shape of docs/gateway.md "Logs"); renders them as `common` or `json`. */
export interface GatewayLogSink {
  write(record: GatewayLogRecord): void;
  /**
   * An access record given by its parts, so a sink builds (or formats) it only when it writes
   * it; a sink without this method gets `write(accessRecord(entry))` (logs/log-sink.ts `logAccess`).
   */
  writeAccess?(entry: AccessRecordInput): void;
  /** The same for a backend record (`write(backendLogRecord(entry))` otherwise). */
  writeBackend?(entry: BackendLogInput): void;
}

export interface GatewayLogRecord {
  readonly type: 'gateway_access' | 'gateway_backend' | 'gateway_daemon';
  readonly level: 'error' | 'warn' | 'info' | 'debug' | 'trace';
  readonly timestamp: string;
  readonly [field: string]: unknown;
}

// ---------------------------------------------------------------- endpoints

/** The request as the gateway sees it after host matching, forwarded headers and routing. */
export interface RequestInfo {
  readonly id: string;
  readonly method: string;
  /** After `xfh` / `accept_forwarded_url`. */
  readonly url: URL;
  readonly clientIp: string;
  /** Lower-case names, as received. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly pathParams: Readonly<Record<string, string>>;
  /** Path the `/**` of the pattern matched (without leading `/`), or null. */
  readonly wildcard: string | null;
  readonly startedAt: number;
}

/** A request refused by an access control or a permission check, for the consoles' Events (never a token or password). */
export interface AccessDenial {
  /** ISO time. */
  readonly at: string;
  /** The error type, e.g. `jwt_token_expired`, `basic_auth`, `beta_insufficient_permissions`. */
  readonly type: string;
  /** The access control that refused, or null for a permission check. */
  readonly label: string | null;
  readonly server: string | null;
  /** The route as the Config view names it: the endpoint path (`/api/v1/**`), `<base_path>/**` of a files block, a spa's paths; null when none. */
  readonly endpoint: string | null;
  readonly method: string;
  /** The request path without its query. */
  readonly path: string;
  readonly clientIp: string;
}

/** Mutable annotations the access log line reads (filled by whoever knows them). */
export interface AccessLogFields {
  handler?: string;
  /** The user an access control authenticated (basic_auth user, jwt `sub`), for `auth_user`. */
  authUser?: string;
  /** Set when an access control or permission check refused the request. */
  denial?: { readonly type: string; readonly label: string | null };
  errorType?: string;
  errorDetail?: string;
  /** custom_log_fields of the access controls that ran (under the block's own). */
  custom?: Record<string, unknown>;
  /**
   * custom_log_fields of the block (server → api → endpoint), set by an endpoint handler that
   * evaluated them in its own scope (`request.context`, the buffered body, `backend_responses`);
   * when unset, the front evaluates the block's fields with the request alone.
   */
  blockCustom?: Record<string, unknown>;
  /** custom_log_fields of the error_handler that answered, with those it inherits (over the block's own). */
  handlerCustom?: Record<string, unknown>;
}

/**
 * The access controls of one applied configuration (key sets and parsed keys live here, so a
 * reload starts fresh with the new configuration's).
 */
/**
 * Gives the request's AbortSignal when read: a control that waits on nothing (a jwt with a
 * static key, basic_auth) never reads it, so the request makes none.
 */
export interface SignalSource {
  readonly signal: AbortSignal;
}

export interface AccessControlSet {
  /**
   * Runs the labelled controls in order; each grant goes into the scope (`request.context.<label>`,
   * granted permissions, the authenticated user). Rejects with the first failure: a GatewayError
   * of the access-control family whose `source` is the label.
   */
  enforce(labels: readonly string[], scope: RequestScope, log: AccessLogFields, cancel: SignalSource): Promise<void>;
  /** True when a jwt among the labels wants `Cache-Control: private` on the responses it guards. */
  privateCaching(labels: readonly string[]): boolean;
  /** Key set state per jwt with jwks_url, for the consoles. */
  jwksStatus(): Readonly<Record<string, { fetchedAt: number | null; keys: number; lastError: string | null }>>;
  /**
   * `oauth2_authorization_url(label)` / `saml_sso_url(label)` for one request; throws a
   * GatewayError (`oauth2` when an oidc provider's configuration is not loaded).
   */
  loginUrl(label: string, verifier: () => string, requestUrl: URL): string;
  /** Loads what the login URLs of these labels need, when missing (an oidc configuration); never rejects. */
  prepareLogins(labels: ReadonlySet<string>, signal: AbortSignal): Promise<void>;
  /** Each login control (beta_oauth2, oidc, saml) with its provider and last failure, for the consoles. */
  loginStatus(): readonly LoginStatus[];
  /** Stops background work (discovery); called once a reload retired this set. */
  close(): void;
}

export interface EndpointContext {
  readonly config: GatewayConfig;
  readonly access: AccessControlSet;
  readonly server: ServerConfig;
  readonly api: ApiConfig | null;
  readonly endpoint: EndpointConfig;
  readonly request: RequestInfo;
  /** The client's request stream; read it only through the endpoint's body reader (it is read once). */
  readonly incoming: IncomingMessage;
  readonly backends: BackendSet;
  readonly log: AccessLogFields;
  /** Where records other than the access line go (a custom_log_fields object that failed to evaluate). */
  readonly logSink: GatewayLogSink;
  /** Aborts when the client goes away or the shutdown deadline passes (made on first read when `cancel` is given). */
  readonly signal: AbortSignal;
  /** The same cancellation without an AbortSignal, for the hot path (backend requests). */
  readonly cancel?: RequestCancel;
  /**
   * The endpoint's method check (405 for a method it does not take, or names by override), left
   * to the handler to run once the access controls passed, as the peer: a refusal before them
   * would tell a client without credentials which methods the route takes. Null when nothing is
   * left to check (the route has no access controls, or the method and overrides are allowed).
   */
  readonly methodCheck?: (() => void) | null;
}

export interface GatewayResponse {
  readonly status: number;
  /** Lower-case names; `set-cookie` an array. */
  readonly headers: Record<string, string | string[]>;
  readonly body: Readable | Buffer | null;
}

/** An endpoint where it is served: what a route is compiled from when a configuration is applied. */
export interface EndpointRoute {
  readonly config: GatewayConfig;
  readonly server: ServerConfig;
  readonly api: ApiConfig | null;
  readonly endpoint: EndpointConfig;
}

/**
 * Runs an endpoint (proxies, requests, response, modifiers of every context, error
 * handlers) and gives the client response. Errors no handler caught reject as GatewayError;
 * the HTTP front renders them with the api's or server's template.
 */
export interface EndpointHandler {
  handle(ctx: EndpointContext): Promise<GatewayResponse>;
  /**
   * The handler of one route, built once when its configuration is applied: only the steps
   * the route uses (a plain proxy route is forwarded without variables, body buffering or
   * modifiers). Serves like `handle` for requests to that route.
   */
  compile?(route: EndpointRoute): (ctx: EndpointContext) => Promise<GatewayResponse>;
  /**
   * Runs the access controls of a files or spa block before it serves: null when they pass,
   * the response of the failing control's error_handler when it has one; otherwise rejects
   * with the access-control error.
   */
  guard(ctx: GuardContext): Promise<GatewayResponse | null>;
}

/** A files or spa block's request, for `EndpointHandler.guard`. */
export interface GuardContext extends Omit<EndpointContext, 'endpoint' | 'api'> {
  /** The block's base path (files) or path pattern (spa), for logs and denials. */
  readonly path: string;
  readonly blockAccess: AccessControl;
  /** An api's `beta_required_permission`, for its unrouted paths: checked once the controls passed. */
  readonly requiredPermission?: Dyn<Permission> | null;
  /** The block's custom_log_fields: evaluated once its access controls ran, so they read `request.context`. */
  readonly customLogFields: CustomLogFields;
}

// ---------------------------------------------------------------- reload and readers

/** What a reload swaps: applies a loaded config or throws, leaving the old one serving. */
export interface ReloadTarget {
  /** `source`: the configuration files' texts it was loaded from (path → text, in load order). */
  apply(config: GatewayConfig, source?: ConfigSource): Promise<void>;
}

/** What a configuration was loaded from, for a process that builds it again (gateway serving processes). */
export interface ConfigSource {
  readonly texts: ReadonlyMap<string, string>;
}

/** The active configuration and its backends' health, for the control API and CDS. */
export interface GatewayState {
  /** Null before the first config applied. */
  readonly config: GatewayConfig | null;
  readonly health: HealthMonitor;
  /** Called after each applied config (reload); returns an unsubscribe function. */
  onConfig(listener: (config: GatewayConfig) => void): () => void;
}
