import type { ApiConfig, BackendConfig, CustomLogFields, Dyn, EndpointConfig, GatewayConfig, HandlerBody, Modifiers, ServerConfig } from '../config/model.js';
import { collectBodyReads, emptyBodyReads, type BodyReads } from '../eval/body-refs.js';
import { collectLoginLabels } from '../eval/login-refs.js';
import { hasFormModifiers } from '../modifiers/params-modifiers.js';

/** What an endpoint's request must buffer, decided once per endpoint from its expressions. */
export interface BodyPlan {
  /** Buffer the client body: an expression reads it, or more than one proxy forwards it. */
  readonly clientBody: boolean;
  /** Form modifiers exist, so a POST urlencoded body must be buffered to rewrite it. */
  readonly formModifiers: boolean;
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
  const addLogFields = (fields: CustomLogFields, into: BodyReads): void => {
    for (const dyn of fields) addDyn(dyn, into);
  };
  let formModifiers = false;
  const backendResponseBodies = new Set<string>();
  const addModifiers = (m: Modifiers): void => {
    for (const dyn of Object.values(m)) addDyn(dyn as Dyn<unknown> | null, reads);
    if (hasFormModifiers(m)) formModifiers = true;
  };
  const addBackend = (name: string): void => {
    const backend = config.backends[name];
    if (!backend) return;
    const own = emptyBodyReads();
    for (const dyn of backendDyns(backend)) addDyn(dyn, own);
    for (const dyn of Object.values(backend.modifiers)) addDyn(dyn as Dyn<unknown> | null, own);
    if (hasFormModifiers(backend.modifiers)) formModifiers = true;
    merge(reads, own);
    if (own.backendResponse) backendResponseBodies.add(name);
    // A 401 from a backend with oauth2 is retried with a new token: the body must be there to send again.
    if (backend.oauth2 !== null && backend.oauth2.retries > 0) reads.clientBody = true;
    // OpenAPI validation reads the whole request body before it is sent.
    if (backend.openapi !== null) reads.clientBody = true;
  };
  const addBody = (body: HandlerBody): void => {
    addLogFields(body.customLogFields, reads);
    addModifiers(body.modifiers);
    for (const p of body.proxies) {
      addDyn(p.url, reads);
      addModifiers(p.modifiers);
      addBackend(p.backend);
    }
    for (const r of body.requests) {
      for (const dyn of [r.url, r.method, r.body, r.jsonBody, r.formBody, r.headers, r.queryParams]) addDyn(dyn as Dyn<unknown> | null, reads);
      addBackend(r.backend);
    }
    if (body.response) for (const dyn of [body.response.status, body.response.body, body.response.jsonBody, body.response.headers]) addDyn(dyn as Dyn<unknown> | null, reads);
    for (const handler of body.errorHandlers) addBody(handler);
  };
  // Access controls run first: a token_value or claims expression, or an access control's
  // error handler, may read the body.
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
  addDyn(endpoint.requiredPermission, reads);
  addModifiers(server.modifiers);
  if (api) {
    addModifiers(api.modifiers);
    for (const handler of api.errorHandlers) addBody(handler);
  }
  addBody(endpoint);
  return {
    clientBody: reads.clientBody || endpoint.proxies.length > 1,
    formModifiers,
    responseBodies: reads.backendResponses,
    allResponseBodies: reads.allBackendResponses,
    backendResponseBodies,
    loginLabels,
  };
}

function backendDyns(b: BackendConfig): (Dyn<unknown> | null)[] {
  return [b.hostname, b.path, b.pathPrefix, b.basicAuth, ...b.customLogFields];
}

function merge(into: BodyReads, from: BodyReads): void {
  if (from.clientBody) into.clientBody = true;
  if (from.allBackendResponses) into.allBackendResponses = true;
  for (const label of from.backendResponses) into.backendResponses.add(label);
}
