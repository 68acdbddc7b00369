/**
 * Per-request expression evaluation for the gateway: the request's variables and
 * functions (`RequestScope`), per-request attributes (`evalDyn`), custom log fields and the
 * response-header modifiers every serving block applies.
 */
export { evalCustomLogFields, evalDyn, evalExpression, evalOptional, type AttrCheck } from './eval-dyn.js';
export { RequestScope, type BackendRequestFacts, type BackendResponseFacts, type EvalScope, type RequestScopeOptions } from './request-scope.js';
export { collectBodyReads, emptyBodyReads, type BodyReads } from './body-refs.js';
export { applyResponseHeaderModifiers, applyRequestHeaderModifiers, type HeaderRecord } from '../modifiers/header-modifiers.js';
