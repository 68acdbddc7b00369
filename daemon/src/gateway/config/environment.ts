import type { Attribute, Body } from '../../hcl/index.js';
import { LoadScope } from './attr-reader.js';
import type { Diagnostics } from './diagnostics.js';
import { expressionRefs } from './expr-refs.js';

/**
 * `env` as the configuration sees it, built once per load: the `environment_variables` of
 * every `defaults` block (later files win per key), overlaid by the process environment,
 * plus "" for each `env.NAME` the files read that neither defines, as the peer does, so
 * an unset optional variable reads as empty instead of failing. Unlike the peer, process
 * variables the files neither read nor default are left out: the model is shown in the
 * consoles, and a per-request `env[key]` must not reach the daemon's own secrets.
 */
export function buildEnvironment(
  defaults: readonly Attribute[],
  processEnv: Readonly<Record<string, string | undefined>>,
  bodies: readonly Body[],
  version: string,
  diags: Diagnostics,
): Record<string, string> {
  const real: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(processEnv)) if (v !== undefined) real[k] = v;
  const referenced = referencedNames(bodies);
  // Defaults may themselves read the real environment (`A = env.B`), as upstream allows.
  const scope = new LoadScope(diags, { ...referenced, ...real }, version);
  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const attr of defaults) {
    const body: Body = { attributes: { environment_variables: attr }, blocks: [], range: attr.range };
    const values = scope.reader(body, 'defaults').value<Record<string, string>>('environment_variables');
    if (values) Object.assign(env, values);
  }
  const result = Object.assign(Object.create(null) as Record<string, string>, referenced, env);
  for (const name of Object.keys(result)) if (name in real) result[name] = real[name] as string;
  return result;
}

/** Every `env.NAME` (or `env["NAME"]`) read anywhere, mapped to "". */
function referencedNames(bodies: readonly Body[]): Record<string, string> {
  const names: Record<string, string> = Object.create(null) as Record<string, string>;
  const visit = (body: Body): void => {
    for (const name in body.attributes) {
      for (const ref of expressionRefs(body.attributes[name]!.expr).variables) {
        const first = ref.steps[0];
        if (ref.root !== 'env' || !first) continue;
        if (first.kind === 'attr') names[first.name] = '';
        else if (typeof first.key === 'string') names[first.key] = '';
      }
    }
    for (const block of body.blocks) visit(block.body);
  };
  for (const body of bodies) visit(body);
  return names;
}
