import type { Expression, Traverser } from '../../hcl/index.js';
import { expressionRefs } from '../config/expr-refs.js';
import { stepName } from './lenient-traversals.js';

const BODY_FIELDS: readonly string[] = ['body', 'form_body', 'json_body'];

/** Which bodies a set of expressions reads, so only those are buffered. */
export interface BodyReads {
  /** `request.body` / `form_body` / `json_body` (or the whole `request`), also through `backend_request(s)`. */
  clientBody: boolean;
  /** Labels whose `backend_responses.<label>.body` / `json_body` is read. */
  readonly backendResponses: Set<string>;
  /** `backend_responses` read as a whole or with a computed label. */
  allBackendResponses: boolean;
  /** `backend_response.body` / `json_body` inside a backend block. */
  backendResponse: boolean;
}

export function emptyBodyReads(): BodyReads {
  return { clientBody: false, backendResponses: new Set(), allBackendResponses: false, backendResponse: false };
}

/** Whether `steps[at]` names a body field, or the traversal stops before it (the whole object is read). */
function readsBodyAt(steps: readonly Traverser[], at: number): boolean {
  if (steps.length <= at) return true;
  const name = stepName(steps[at]);
  return name === undefined || BODY_FIELDS.includes(name);
}

/** Adds what `expr` reads to `into`. */
export function collectBodyReads(expr: Expression, into: BodyReads): void {
  for (const ref of expressionRefs(expr).variables) {
    switch (ref.root) {
      case 'request':
      case 'backend_request':
        if (readsBodyAt(ref.steps, 0)) into.clientBody = true;
        break;
      case 'backend_requests':
        if (readsBodyAt(ref.steps, 1)) into.clientBody = true;
        break;
      case 'backend_response':
        if (readsBodyAt(ref.steps, 0)) into.backendResponse = true;
        break;
      case 'backend_responses': {
        const label = stepName(ref.steps[0]);
        if (label === undefined) into.allBackendResponses = true;
        else if (readsBodyAt(ref.steps, 1)) into.backendResponses.add(label);
        break;
      }
      default:
        break;
    }
  }
}
