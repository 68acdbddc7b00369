import type { ApiConfig, BackendConfig, Dyn, EndpointConfig, GatewayConfig, HandlerBody, Modifiers, ServerConfig } from '../config/model.js';
import { collectBodyReads, emptyBodyReads, type BodyReads } from '../eval/body-refs.js';
import { collectLoginLabels } from '../eval/login-refs.js';
import { hasFormModifiers } from '../modifiers/params-modifiers.js';
import { formOverrideMatters } from '../http/method-override.js';

/** What an endpoint's request must buffer, decided once per endpoint from its expressions. */
export interface BodyPlan {
  /** Buffer the client body: an expression reads it, or more than one proxy forwards it. */
  readonly clientBody: boolean;
  /**
   * The access controls need the body (a token_value or claims expression reads it, a SAML ACS,
   * a control's error handler): it is buffered before they run. Otherwise it is buffered once
   * they passed, so a client without credentials cannot make the gateway hold a body.
   */
  readonly accessClientBody: boolean;
  /** Form modifiers exist, so a POST urlencoded body must be buffered to rewrite it. */
  readonly formModifiers: boolean;
  /** A `_method` field in a POST urlencoded body could name a method the endpoint refuses, so such a body is buffered and read (http/method-override.ts). */
  readonly formMethodOverride: boolean;
  /** Labels whose response body an expression reads (`backend_responses.<label>.body`). */
  readonly responseBodies: ReadonlySet<string>;
  /** `backend_responses` read as a whole: buffer every response that is not streamed to the client. */
  readonly allResponseBodies: boolean;
  /** Backends whose own expressions read `backend_response.body` / `json_body`. */
  readonly backendResponseBodies: ReadonlySet<string>;
  /** Labels of login controls whose `oauth2_authorization_url` an expression may call (their configuration is loaded first). */
  readonly loginLabels: ReadonlySet<string>;
}

const plans = new WeakMap<EndpointConfig, BodyPlan>();

export function bodyPlanFor(config: GatewayConfig, server: ServerConfig, api: ApiConfig | null, endpoint: EndpointConfig): BodyPlan {
  let plan = plans.get(endpoint);
  if (!plan) {
    plan = buildPlan(config, server, api, endpoint);
    plans.set(endpoint, plan);
  }
  return plan;
}

function buildPlan(config: GatewayConfig, server: ServerConfig, api: ApiConfig | null, endpoint: EndpointConfig): BodyPlan {
  const reads = emptyBodyReads();
  const loginLabels = new Set<string>();
  const allLogins = Object.values(config.accessControls).filter((ac) => ac.kind === 'oidc' || ac.kind === 'beta_oauth2').map((ac) => ac.label);
  const addDyn = (dyn: Dyn<unknown> | null, into: BodyReads): void => {
    if (dyn?.kind !== 'expr') return;
    collectBodyReads(dyn.expr, into);
    if (allLogins.length > 0) collectLoginLabels(dyn.expr, allLogins, loginLabels);
  };
  let formModifiers = false;
  const backendResponseBodies = new Set<string>();
  const addModifiers = (m: Modifiers): void => {
    for (const dyn of modifierDyns(m)) addDyn(dyn, reads);
    if (hasFormModifiers(m)) formModifiers = true;
  };
  const addBackend = (name: string): void => {
    const backend = config.backends[name];
    if (!backend) return;
    const own = emptyBodyReads();
    for (const dyn of backendDyns(backend)) addDyn(dyn, own);
    if (hasFormModifiers(backend.modifiers)) formModifiers = true;
    merge(reads, own);
    if (own.backendResponse) backendResponseBodies.add(name);
    // A 401 from a backend with oauth2 is retried with a new token: the body must be there to send again.
    if (backend.oauth2 !== null && backend.oauth2.retries > 0) reads.clientBody = true;
    // OpenAPI validation reads the whole request body before it is sent.
    if (backend.openapi !== null) reads.clientBody = true;
  };
  const addBody = (body: HandlerBody): void => {
    for (const dyn of bodyDyns(body)) addDyn(dyn, reads);
    if (hasFormModifiers(body.modifiers)) formModifiers = true;
    for (const p of body.proxies) {
      if (hasFormModifiers(p.modifiers)) formModifiers = true;
      addBackend(p.backend);
    }
    for (const r of body.requests) addBackend(r.backend);
    for (const handler of body.errorHandlers) addBody(handler);
  };
  // Access controls run first: a token_value or claims expression, or an access control's
  // error handler, may read the body (nothing else was collected before them: accessClientBody).
  for (const label of endpoint.access.effective) {
    const ac = config.accessControls[label];
    if (!ac) continue;
    if (ac.kind === 'jwt') {
      if (ac.source.kind === 'value') addDyn(ac.source.value, reads);
      addDyn(ac.claims, reads);
    }
    if (ac.kind === 'beta_oauth2' || ac.kind === 'oidc') addDyn(ac.verifierValue, reads);
    // The ACS reads the IdP's form post.
    if (ac.kind === 'saml') reads.clientBody = true;
    for (const handler of ac.errorHandlers) addBody(handler);
  }
  const accessClientBody = reads.clientBody;
  addDyn(endpoint.requiredPermission, reads);
  addModifiers(server.modifiers);
  if (api) {
    addModifiers(api.modifiers);
    for (const handler of api.errorHandlers) addBody(handler);
  }
  addBody(endpoint);
  return {
    clientBody: reads.clientBody || endpoint.proxies.length > 1,
    accessClientBody,
    formModifiers,
    formMethodOverride: formOverrideMatters(endpoint.allowedMethods, endpoint.requiredPermission),
    responseBodies: reads.backendResponses,
    allResponseBodies: reads.allBackendResponses,
    backendResponseBodies,
    loginLabels,
  };
}

/**
 * The expressions of a body's own attributes: its log fields and modifiers, its proxies' and
 * requests' (not their backends'), its response block's; not its error handlers'.
 */
export function bodyDyns(body: HandlerBody): (Dyn<unknown> | null)[] {
  const all: (Dyn<unknown> | null)[] = [...body.customLogFields, ...modifierDyns(body.modifiers)];
  for (const p of body.proxies) all.push(p.url, ...modifierDyns(p.modifiers));
  for (const r of body.requests) all.push(r.url, r.method, r.body, r.jsonBody, r.formBody, r.headers, r.queryParams);
  if (body.response) all.push(body.response.status, body.response.body, body.response.jsonBody, body.response.headers);
  return all;
}

/** The expressions of a backend block: its attributes, log fields and modifiers. */
export function backendDyns(b: BackendConfig): (Dyn<unknown> | null)[] {
  return [b.hostname, b.path, b.pathPrefix, b.basicAuth, ...b.customLogFields, ...modifierDyns(b.modifiers)];
}

function modifierDyns(m: Modifiers): (Dyn<unknown> | null)[] {
  return Object.values(m) as (Dyn<unknown> | null)[];
}

function merge(into: BodyReads, from: BodyReads): void {
  if (from.clientBody) into.clientBody = true;
  if (from.allBackendResponses) into.allBackendResponses = true;
  for (const label of from.backendResponses) into.backendResponses.add(label);
}
