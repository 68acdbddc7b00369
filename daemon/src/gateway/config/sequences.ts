import type { Block, Body } from '../../hcl/index.js';
import type { LoadScope } from './attr-reader.js';
import { headerRange } from './diagnostics.js';
import { backendResponseLabel, expressionRefs } from './expr-refs.js';

export interface SequenceMember {
  readonly name: string;
  readonly block: Block;
}

export interface Sequence {
  readonly dependsOn: ReadonlyMap<string, readonly string[]>;
  readonly stages: readonly (readonly string[])[];
}

/**
 * Orders the proxy and request blocks of one endpoint (or error handler): a block that
 * reads `backend_responses.<name>` of a sibling runs after it; the rest run in parallel.
 * A block may read its own response (its modifiers run after it), and names that are no
 * sibling (an enclosing endpoint's, or a typo the runtime reports) do not order anything.
 * A cycle is an error naming the blocks, as the peer words it.
 */
export function buildSequence(members: readonly SequenceMember[], scope: LoadScope): Sequence {
  const names = members.map((m) => m.name);
  const dependsOn = new Map<string, string[]>();
  for (const m of members) {
    const deps = new Set<string>();
    collect(m.block.body, (label) => {
      if (label !== m.name && names.includes(label)) deps.add(label);
    });
    dependsOn.set(m.name, [...deps]);
  }
  reportCycles(members, dependsOn, scope);
  return { dependsOn, stages: stagesOf(names, dependsOn) };
}

function collect(body: Body, found: (label: string) => void): void {
  for (const attr of Object.values(body.attributes)) {
    for (const ref of expressionRefs(attr.expr).variables) {
      const label = backendResponseLabel(ref);
      if (label !== undefined) found(label);
    }
  }
  for (const block of body.blocks) collect(block.body, found);
}

function reportCycles(members: readonly SequenceMember[], dependsOn: ReadonlyMap<string, readonly string[]>, scope: LoadScope): void {
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const reported = new Set<string>();
  const visit = (name: string): void => {
    state.set(name, 'visiting');
    stack.push(name);
    for (const dep of dependsOn.get(name) ?? []) {
      const s = state.get(dep);
      if (s === 'visiting') {
        const cycle = stack.slice(stack.indexOf(dep));
        const key = [...cycle].sort().join(',');
        if (!reported.has(key)) {
          reported.add(key);
          const first = members.find((m) => m.name === cycle[0]) as SequenceMember;
          scope.diags.error('configuration error', `circular sequence reference: ${[...cycle, cycle[0]].join(',')}`, headerRange(first.block));
        }
      } else if (s === undefined) {
        visit(dep);
      }
    }
    stack.pop();
    state.set(name, 'done');
  };
  for (const m of members) if (!state.has(m.name)) visit(m.name);
}

/** Kahn's levels: each stage holds the blocks whose dependencies all ran in earlier stages. */
function stagesOf(names: readonly string[], dependsOn: ReadonlyMap<string, readonly string[]>): string[][] {
  const stages: string[][] = [];
  const placed = new Set<string>();
  let left = [...new Set(names)];
  while (left.length > 0) {
    const stage = left.filter((n) => (dependsOn.get(n) ?? []).every((d) => placed.has(d)));
    if (stage.length === 0) break;
    for (const n of stage) placed.add(n);
    stages.push(stage);
    left = left.filter((n) => !placed.has(n));
  }
  return stages;
}
