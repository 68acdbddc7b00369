import type { Readable } from 'node:stream';
import type { FunctionTable } from '../../hcl/index.js';
import type { GatewayConfig } from '../config/model.js';
import type { AccessControlSet, HealthMonitor, RequestInfo } from '../contracts.js';
import type { GatewayError } from '../errors/error-types.js';
import type { MethodOverride } from '../http/method-override.js';
import { formBody, headerMap, jsonBody, queryMap, requestCookies, responseCookies, urlPart, URL_PARTS } from './http-variables.js';
import { WHOLE, type RootResolver } from './lenient-traversals.js';
import { requestFunctions } from './request-functions.js';

/** What expressions can read: the roots of variables (whole, or `request` by attribute) and the functions. */
export interface EvalScope extends RootResolver {
  readonly functions: FunctionTable;
  /** The typed failure a function reported while the last expression was evaluated, once. */
  takeTypedFailure?(): GatewayError | null;
}

/** An outgoing backend request as `backend_requests.<label>` / `backend_request` show it. */
export interface BackendRequestFacts {
  readonly id: string;
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** The body when it was built or buffered; null when it streamed. */
  readonly body: Buffer | null;
}

/** A backend response as `backend_responses.<label>` / `backend_response` show it. */
export interface BackendResponseFacts {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** Null while the body streams untouched (not buffered). */
  readonly body: Buffer | null;
}

export interface RequestScopeOptions {
  readonly config: GatewayConfig;
  readonly request: RequestInfo;
  /** `backends.<label>.health`; without one every backend reads healthy. */
  readonly health?: HealthMonitor | null;
  /** `request.context.beta_required_permission` for this request ("" when none). */
  readonly requiredPermission?: string;
  /** The login controls for `oauth2_authorization_url` and `saml_sso_url`. */
  readonly access?: AccessControlSet | null;
}

/**
 * The variables of one client request (spec "Variables"), built on first read. The client
 * body is seen only once buffered (`setBody`); until then `request.body` is "" and
 * `form_body` / `json_body` are empty, as for a streamed body in the peer.
 */
export class RequestScope implements EvalScope {
  private functionTable: FunctionTable | null = null;
  private body: Buffer | null = null;
  private bodyStreamed: Readable | null = null;
  private bodyOverrides: readonly MethodOverride[] = [];
  /** `request`, its attributes built as expressions read them; made again when the body, the grants or the permission change. */
  private requestVar: LazyRecord<RequestScope> | null = null;
  private backendsVar: Record<string, unknown> | null = null;
  private backendRequestAttrs: Attributes<BackendRequestFacts> | null = null;
  // Facts are kept as they come; their variables are built only if an expression reads them.
  private readonly backendRequests = new Map<string, LazyRecord<BackendRequestFacts>>();
  private readonly backendResponses = new Map<string, LazyRecord<BackendResponseFacts>>();
  /** `request.context.<label>` of each access control passed, in order. */
  private readonly accessContext: Record<string, unknown> = {};
  private granted: string[] = [];
  private required: string;
  private typedFailure: GatewayError | null = null;

  constructor(private readonly options: RequestScopeOptions) {
    this.required = options.requiredPermission ?? '';
  }

  get functions(): FunctionTable {
    return (this.functionTable ??= requestFunctions({
      config: this.options.config,
      scope: this,
      access: this.options.access ?? null,
      requestUrl: this.options.request.url,
      onTypedFailure: (error) => (this.typedFailure = error),
    }));
  }

  takeTypedFailure(): GatewayError | null {
    const failure = this.typedFailure;
    this.typedFailure = null;
    return failure;
  }

  /** Records what an access control granted: its `request.context.<label>` and the permissions it grants. */
  grantAccess(label: string, context: unknown, permissions: readonly string[]): void {
    this.accessContext[label] = context;
    for (const p of permissions) if (!this.granted.includes(p)) this.granted.push(p);
    this.requestVar = null;
  }

  get grantedPermissions(): readonly string[] {
    return this.granted;
  }

  /** `request.context.beta_required_permission` once the permission for this method is known. */
  setRequiredPermission(permission: string): void {
    this.required = permission;
    this.requestVar = null;
  }

  get request(): RequestInfo {
    return this.options.request;
  }

  /** The buffered client body (after `request_body_limit` was checked). */
  setBody(body: Buffer): void {
    this.body = body;
    this.requestVar = null;
  }

  bufferedBody(): Buffer | null {
    return this.body;
  }

  /** The client body as a proxy streams it when it is not the request itself (one checked on its way: http/multipart-method-override.ts). */
  setBodyStream(stream: Readable): void {
    this.bodyStreamed = stream;
  }

  bodyStream(): Readable | null {
    return this.bodyStreamed;
  }

  /** The methods the `_method` fields of the client body name, once read (for the permission of each). */
  setBodyMethodOverrides(overrides: readonly MethodOverride[]): void {
    this.bodyOverrides = overrides;
  }

  bodyMethodOverrides(): readonly MethodOverride[] {
    return this.bodyOverrides;
  }

  recordBackendRequest(label: string, facts: BackendRequestFacts): void {
    this.backendRequests.set(label, new LazyRecord(facts, this.backendRequestAttributes()));
  }

  recordBackendResponse(label: string, facts: BackendResponseFacts): void {
    this.backendResponses.set(label, new LazyRecord(facts, BACKEND_RESPONSE));
  }

  resolve(root: string): unknown {
    switch (root) {
      case 'gateway':
        return new Map([['version', this.options.config.version]]);
      case 'env':
        return new Map(Object.entries(this.options.config.env));
      case 'request':
        return this.requestVariable().value;
      case 'backends':
        return (this.backendsVar ??= this.buildBackends());
      case 'backend_requests':
        return variables(this.backendRequests);
      case 'backend_responses':
        return variables(this.backendResponses);
      default:
        return undefined;
    }
  }

  /** A scope for expressions of a backend block: adds `backend_request` and, once received, `backend_response`. */
  forBackend(request: BackendRequestFacts, response: BackendResponseFacts | null): EvalScope {
    return new BackendScope(this, new LazyRecord(request, this.backendRequestAttributes()), response ? new LazyRecord(response, BACKEND_RESPONSE) : null);
  }

  /** A backend request's attributes: its own, and the client request's `context` (the spec: "types as for request"). */
  private backendRequestAttributes(): Attributes<BackendRequestFacts> {
    return (this.backendRequestAttrs ??= { ...BACKEND_REQUEST, context: () => this.contextVariable() });
  }

  /**
   * `request.<name>` without the rest of `request`: an expression such as `request.id` or
   * `request.headers.x` builds what it reads, not the headers, cookies, query, body and URL
   * parts of every other attribute.
   */
  resolveAttribute(root: string, name: string): unknown {
    return root === 'request' ? this.requestVariable().attribute(name) : WHOLE;
  }

  private requestVariable(): LazyRecord<RequestScope> {
    return (this.requestVar ??= new LazyRecord<RequestScope>(this, RequestScope.REQUEST_ATTRIBUTES));
  }

  /** `request`'s attributes, in the order `request` lists them whole. */
  private static readonly REQUEST_ATTRIBUTES: Attributes<RequestScope> = {
    id: (s) => s.options.request.id,
    method: (s) => s.options.request.method,
    headers: (s) => headerMap(s.options.request.headers),
    cookies: (s) => requestCookies(s.options.request.headers['cookie']),
    query: (s) => queryMap(s.options.request.url.searchParams),
    path_params: (s) => new Map(Object.entries(s.options.request.pathParams)),
    body: (s) => (s.body === null ? '' : s.body.toString('utf8')),
    form_body: (s) => formBody(s.options.request.headers['content-type'], s.body),
    json_body: (s) => jsonBody(s.options.request.headers['content-type'], s.body),
    context: (s) => s.contextVariable(),
    ...urlAttributes<RequestScope>((s) => s.options.request.url),
  };

  /** `request.context`: each access control's grant, then the permissions (a label can never shadow them: those labels are reserved). */
  contextVariable(): Record<string, unknown> {
    return { ...this.accessContext, beta_granted_permissions: [...this.granted], beta_required_permission: this.required };
  }

  private buildBackends(): Record<string, unknown> {
    const snapshot = this.options.health?.snapshot() ?? {};
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(this.options.config.backends)) {
      const h = snapshot[name];
      out[name] = { health: h ? { error: h.error, healthy: h.healthy, state: h.state } : { error: '', healthy: true, state: 'healthy' } };
    }
    return out;
  }
}

/** How each attribute of a variable is built from its facts. */
type Attributes<F> = Readonly<Record<string, (facts: F) => unknown>>;

/** `url`, `origin`, `protocol`, `host`, `port` and `path` of the URL the facts hold. */
function urlAttributes<F>(url: (facts: F) => URL): Attributes<F> {
  return Object.fromEntries(URL_PARTS.map((part) => [part, (facts: F) => urlPart(url(facts), part)]));
}

/**
 * A variable whose attributes are built from its facts when first read, one at a time
 * (`attribute`) or all (`value`); each is built once, so both see the same values.
 */
class LazyRecord<F> {
  #attributes = new Map<string, unknown>();
  #value: Record<string, unknown> | null = null;

  constructor(
    private readonly facts: F,
    private readonly builders: Attributes<F>,
  ) {}

  /** The attribute `name`, or null when the variable has none (as a missing attribute reads). */
  attribute(name: string): unknown {
    if (this.#attributes.has(name)) return this.#attributes.get(name);
    const build = Object.prototype.hasOwnProperty.call(this.builders, name) ? this.builders[name] : undefined;
    const value = build === undefined ? null : build(this.facts);
    this.#attributes.set(name, value);
    return value;
  }

  get value(): Record<string, unknown> {
    if (this.#value === null) {
      const value: Record<string, unknown> = {};
      for (const name of Object.keys(this.builders)) value[name] = this.attribute(name);
      this.#value = value;
    }
    return this.#value;
  }
}

function variables<F>(lazy: ReadonlyMap<string, LazyRecord<F>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [label, variable] of lazy) out[label] = variable.value;
  return out;
}

/** The scope of a backend block's expressions: the request's, plus `backend_request` and `backend_response`. */
class BackendScope implements EvalScope {
  constructor(
    private readonly parent: RequestScope,
    private readonly request: LazyRecord<BackendRequestFacts>,
    private readonly response: LazyRecord<BackendResponseFacts> | null,
  ) {}

  get functions(): FunctionTable {
    return this.parent.functions;
  }

  takeTypedFailure(): GatewayError | null {
    return this.parent.takeTypedFailure();
  }

  resolve(root: string): unknown {
    if (root === 'backend_request') return this.request.value;
    if (root === 'backend_response') return this.response?.value;
    return this.parent.resolve(root);
  }

  resolveAttribute(root: string, name: string): unknown {
    if (root === 'backend_request') return this.request.attribute(name);
    if (root === 'backend_response') return this.response === null ? WHOLE : this.response.attribute(name);
    return this.parent.resolveAttribute(root, name);
  }
}

/** `backend_request` and `backend_requests.<label>`. */
const BACKEND_REQUEST: Attributes<BackendRequestFacts> = {
  id: (f) => f.id,
  method: (f) => f.method,
  headers: (f) => headerMap(f.headers),
  cookies: (f) => requestCookies(f.headers['cookie']),
  query: (f) => queryMap(f.url.searchParams),
  body: (f) => (f.body === null ? '' : f.body.toString('utf8')),
  form_body: (f) => formBody(f.headers['content-type'], f.body),
  json_body: (f) => jsonBody(f.headers['content-type'], f.body),
  // The client request's, given per scope (backendRequestAttributes).
  context: () => ({}),
  ...urlAttributes<BackendRequestFacts>((f) => f.url),
};

/** `backend_response` and `backend_responses.<label>`. */
const BACKEND_RESPONSE: Attributes<BackendResponseFacts> = {
  status: (f) => f.status,
  headers: (f) => headerMap(f.headers),
  cookies: (f) => responseCookies(f.headers['set-cookie']),
  body: (f) => (f.body === null ? '' : f.body.toString('utf8')),
  json_body: (f) => jsonBody(f.headers['content-type'], f.body),
};
