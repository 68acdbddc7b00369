import { evaluate, type Expression } from '../../hcl/index.js';
import { expressionRefs } from '../config/expr-refs.js';

/**
 * The labels an expression's `oauth2_authorization_url(...)` calls name, so their oidc
 * configuration can be loaded before the expression runs. A label computed per request
 * could be any of them: then every login label is taken.
 */
export function collectLoginLabels(expr: Expression, allLabels: readonly string[], into: Set<string>): void {
  for (const call of expressionRefs(expr).calls) {
    if (call.name !== 'oauth2_authorization_url') continue;
    const first = call.args[0];
    let label: unknown;
    try {
      const refs = first ? expressionRefs(first) : null;
      label = first && refs && refs.variables.length === 0 && refs.calls.length === 0 ? evaluate(first, {}) : undefined;
    } catch {
      label = undefined;
    }
    if (typeof label === 'string') into.add(label);
    else for (const l of allLabels) into.add(l);
  }
}
