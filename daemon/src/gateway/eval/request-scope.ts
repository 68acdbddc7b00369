import type { FunctionTable } from '../../hcl/index.js';
import type { GatewayConfig } from '../config/model.js';
import type { AccessControlSet, HealthMonitor, RequestInfo } from '../contracts.js';
import type { GatewayError } from '../errors/error-types.js';
import { formBody, headerMap, jsonBody, queryMap, requestCookies, responseCookies, urlParts } from './http-variables.js';
import { requestFunctions } from './request-functions.js';

/** What expressions can read: the roots of variables and the functions. */
export interface EvalScope {
  /** The plain value of a root variable, or undefined when there is none here. */
  resolve(root: string): unknown;
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
  private requestVar: Record<string, unknown> | null = null;
  private backendsVar: Record<string, unknown> | null = null;
  // Facts are kept as they come; their variables are built only if an expression reads them.
  private readonly backendRequests = new Map<string, LazyVariable<BackendRequestFacts>>();
  private readonly backendResponses = new Map<string, LazyVariable<BackendResponseFacts>>();
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

  recordBackendRequest(label: string, facts: BackendRequestFacts): void {
    this.backendRequests.set(label, new LazyVariable(facts, backendRequestVariable));
  }

  recordBackendResponse(label: string, facts: BackendResponseFacts): void {
    this.backendResponses.set(label, new LazyVariable(facts, backendResponseVariable));
  }

  resolve(root: string): unknown {
    switch (root) {
      case 'gateway':
        return new Map([['version', this.options.config.version]]);
      case 'env':
        return new Map(Object.entries(this.options.config.env));
      case 'request':
        return (this.requestVar ??= this.buildRequest());
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
    return new BackendScope(this, new LazyVariable(request, backendRequestVariable), response ? new LazyVariable(response, backendResponseVariable) : null);
  }

  private buildRequest(): Record<string, unknown> {
    const { request } = this.options;
    const headers = request.headers;
    return {
      id: request.id,
      method: request.method,
      headers: headerMap(headers),
      cookies: requestCookies(headers['cookie']),
      query: queryMap(request.url.searchParams),
      path_params: new Map(Object.entries(request.pathParams)),
      body: this.body === null ? '' : this.body.toString('utf8'),
      form_body: formBody(headers['content-type'], this.body),
      json_body: jsonBody(headers['content-type'], this.body),
      context: this.contextVariable(),
      ...urlParts(request.url),
    };
  }

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

/** A variable built from its facts on first read. */
class LazyVariable<F> {
  #value: Record<string, unknown> | null = null;

  constructor(
    private readonly facts: F,
    private readonly build: (facts: F) => Record<string, unknown>,
  ) {}

  get value(): Record<string, unknown> {
    return (this.#value ??= this.build(this.facts));
  }
}

function variables<F>(lazy: ReadonlyMap<string, LazyVariable<F>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [label, variable] of lazy) out[label] = variable.value;
  return out;
}

/** The scope of a backend block's expressions: the request's, plus `backend_request` and `backend_response`. */
class BackendScope implements EvalScope {
  constructor(
    private readonly parent: RequestScope,
    private readonly request: LazyVariable<BackendRequestFacts>,
    private readonly response: LazyVariable<BackendResponseFacts> | null,
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
}

function backendRequestVariable(facts: BackendRequestFacts): Record<string, unknown> {
  const contentType = facts.headers['content-type'];
  return {
    id: facts.id,
    method: facts.method,
    headers: headerMap(facts.headers),
    cookies: requestCookies(facts.headers['cookie']),
    query: queryMap(facts.url.searchParams),
    body: facts.body === null ? '' : facts.body.toString('utf8'),
    form_body: formBody(contentType, facts.body),
    json_body: jsonBody(contentType, facts.body),
    context: {},
    ...urlParts(facts.url),
  };
}

function backendResponseVariable(facts: BackendResponseFacts): Record<string, unknown> {
  return {
    status: facts.status,
    headers: headerMap(facts.headers),
    cookies: responseCookies(facts.headers['set-cookie']),
    body: facts.body === null ? '' : facts.body.toString('utf8'),
    json_body: jsonBody(facts.headers['content-type'], facts.body),
  };
}
