import type { Block, Body, Diagnostic, Range } from '../../hcl/index.js';
import { headerRange } from './diagnostics.js';
import { backendLabelRule, BLOCKS, type BlockSpec, type LabelRule } from './schema.js';

/**
 * Checks a configuration body against the schema: known blocks where they may nest, known
 * attributes, required attributes present, label counts. Collects every problem; wording
 * follows upstream HCL's decoder so messages read as users of the peer expect.
 */
export function checkStructure(body: Body): Diagnostic[] {
  const diags: Diagnostic[] = [];
  checkBody(body, 'root', BLOCKS.root!, null, diags);
  return diags;
}

function checkBody(body: Body, type: string, spec: BlockSpec, owner: Block | null, diags: Diagnostic[]): void {
  // `in` makes no array (a 10,000-backend file has some 20,000 bodies); the parser's attribute
  // records have no prototype, so it sees their own entries only.
  for (const key in body.attributes) {
    const attr = body.attributes[key]!;
    // Own entries only: `toString` or `constructor` are arguments like any other unknown one.
    if (!Object.hasOwn(spec.attributes, attr.name)) {
      diags.push(error('Unsupported argument', `An argument named "${attr.name}" is not expected here.`, attr.nameRange));
    }
  }
  for (const name of requiredAttributes(spec)) {
    if (!(name in body.attributes)) {
      diags.push(error('Missing required argument', `The argument "${name}" is required, but no definition was found.`, owner ? headerRange(owner) : body.range));
    }
  }
  for (const block of body.blocks) {
    const childSpec = BLOCKS[block.type];
    if (!spec.blocks.includes(block.type) || !childSpec) {
      diags.push(error('Unsupported block type', `Blocks of type "${block.type}" are not expected here.`, block.typeRange));
      continue;
    }
    if (childSpec.unsupported) {
      diags.push(error('Unsupported block type', `Blocks of type "${block.type}" are not supported by this Portico build: ${childSpec.unsupported}.`, block.typeRange));
      continue;
    }
    const rule = block.type === 'backend' ? backendLabelRule(type) : childSpec.labels;
    if (checkLabels(block, rule, diags)) checkBody(block.body, block.type, childSpec, block, diags);
  }
}

const REQUIRED = new WeakMap<BlockSpec, readonly string[]>();

/** The spec's required attribute names, listed once per spec (a 10,000-backend file checks the same spec 10,000 times). */
function requiredAttributes(spec: BlockSpec): readonly string[] {
  let names = REQUIRED.get(spec);
  if (!names) {
    names = Object.entries(spec.attributes).flatMap(([name, attr]) => (attr.required ? [name] : []));
    REQUIRED.set(spec, names);
  }
  return names;
}

/** False when the labels are so wrong that the body is better left unchecked. */
function checkLabels(block: Block, rule: LabelRule, diags: Diagnostic[]): boolean {
  const count = block.labels.length;
  if (rule.kind === 'any') return true;
  if (rule.kind === 'none') {
    if (count > 0) diags.push(error(`Extraneous label for ${block.type}`, `No labels are expected for ${block.type} blocks.`, block.labelRanges[0]!));
    return true;
  }
  if (rule.kind === 'required' && count === 0) {
    diags.push(error(`Missing ${rule.name} for ${block.type}`, `All ${block.type} blocks must have 1 labels (${rule.name}).`, block.typeRange));
    return false;
  }
  if (count > 1) {
    diags.push(error(`Extraneous label for ${block.type}`, `Only 1 labels (${rule.name}) are expected for ${block.type} blocks.`, block.labelRanges[1]!));
  }
  return true;
}

function error(summary: string, detail: string, range: Range): Diagnostic {
  return { severity: 'error', summary, detail, range };
}
