import { evaluate, formatRange, HclError, type Expression, type PlainValue } from '../../hcl/index.js';
import { checkType } from '../config/attr-types.js';
import { expressionRefs } from '../config/expr-refs.js';
import type { CustomLogFields, Dyn } from '../config/model.js';
import type { AttrType } from '../config/schema.js';
import { GatewayError } from '../errors/error-types.js';
import { directEvaluator } from './direct-eval.js';
import { resolveTraversals } from './lenient-traversals.js';
import { REQUEST_FUNCTION_NAMES } from './request-functions.js';
import type { EvalScope } from './request-scope.js';

/** What a per-request value must convert to, and its attribute name for messages. */
export interface AttrCheck {
  readonly name: string;
  readonly type: AttrType;
}

/**
 * Evaluates an expression for a request. Failures become GatewayError `evaluation` (500)
 * whose detail carries `file:line,col: summary; detail` for the log line.
 */
export function evalExpression(expr: Expression, scope: EvalScope): PlainValue {
  try {
    const direct = directEvaluator(expr);
    if (direct !== null) return direct(scope);
    // The request's functions are made for each request on first use: only an expression that calls one needs them.
    return evaluate(resolveTraversals(expr, scope), {}, callsRequestFunctions(expr) ? scope.functions : undefined);
  } catch (error) {
    const typed = scope.takeTypedFailure?.();
    if (typed) throw typed;
    if (error instanceof HclError) throw new GatewayError('evaluation', error.message, { cause: error });
    throw new GatewayError('evaluation', `${formatRange(expr.range)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Whether each expression of the configuration calls a function of the request (jwt_sign, unixtime, ...), found once. */
const callsOfRequest = new WeakMap<Expression, boolean>();

export function callsRequestFunctions(expr: Expression): boolean {
  let known = callsOfRequest.get(expr);
  if (known === undefined) {
    known = expressionRefs(expr).calls.some((call) => (REQUEST_FUNCTION_NAMES as readonly string[]).includes(call.name));
    callsOfRequest.set(expr, known);
  }
  return known;
}

/**
 * A per-request attribute's value: static ones as loaded, expressions evaluated now and,
 * given `check`, converted to the attribute's type like at load. Null means "not set".
 */
export function evalDyn<T>(dyn: Dyn<T>, scope: EvalScope, check?: AttrCheck): T | null {
  if (dyn.kind === 'static') return dyn.value;
  const value = evalExpression(dyn.expr, scope);
  if (value === null || !check) return value as T | null;
  const checked = checkType(value, check.type);
  if (checked.ok) return checked.value as T;
  const summary = checked.kind === 'type' ? 'Incorrect attribute value type; Inappropriate value for attribute' : 'Invalid attribute value; Invalid value for attribute';
  throw new GatewayError('evaluation', `${formatRange(dyn.expr.range)}: ${summary} "${check.name}": ${checked.problem}.`);
}

/** `evalDyn` for an optional attribute. */
export function evalOptional<T>(dyn: Dyn<T> | null, scope: EvalScope, check?: AttrCheck): T | null {
  return dyn === null ? null : evalDyn(dyn, scope, check);
}

/**
 * `custom_log_fields` from the outermost block in: merged, inner keys winning. A failing
 * block is left out and reported to `onError` (a log field must not fail the request).
 */
export function evalCustomLogFields(fields: CustomLogFields, scope: EvalScope, onError?: (error: GatewayError) => void): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const dyn of fields) {
    try {
      const value = evalDyn(dyn, scope, { name: 'custom_log_fields', type: 'object' });
      if (value !== null) Object.assign(out, value);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      onError?.(error);
    }
  }
  return out;
}
