import { parse, type Body, type Expression, type Range } from '../../hcl/index.js';

/** Attributes whose value is a secret by name alone. */
const SECRET_NAMES = new Set(['basic_auth', 'password', 'client_secret', 'key', 'signing_key', 'token', 'secret', 'authorization', 'cookie']);
const SECRET_PART = /secret|password|passwd|token|key|authorization|cookie/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(name.toLowerCase()) || SECRET_PART.test(name);
}

export const REDACTED = '"***"';

export interface RedactedSource {
  /** Null when the text does not parse: it is then never shown. */
  text: string | null;
  redacted: number;
}

/**
 * The source with the value of every secret attribute (and every object item with a secret
 * key, e.g. an `Authorization` header or an `environment_variables` entry named `API_TOKEN`)
 * replaced by `"***"`, located with the parser's ranges. Comments are shown as written.
 */
export function redactSource(text: string, filename: string): RedactedSource {
  const parsed = parse(text, filename);
  if (parsed.diagnostics.some((d) => d.severity === 'error')) return { text: null, redacted: 0 };
  const ranges: Array<[number, number]> = [];
  collectBody(parsed.body, ranges);
  ranges.sort((a, b) => a[0] - b[0]);
  const bytes = Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let at = 0;
  let count = 0;
  for (const [start, end] of ranges) {
    if (start < at) continue; // inside a value already replaced
    parts.push(bytes.subarray(at, start), Buffer.from(REDACTED));
    at = end;
    count += 1;
  }
  parts.push(bytes.subarray(at));
  return { text: Buffer.concat(parts).toString('utf8'), redacted: count };
}

function collectBody(body: Body, out: Array<[number, number]>): void {
  for (const attribute of Object.values(body.attributes)) {
    if (isSecretName(attribute.name)) out.push(span(attribute.expr.range));
    else collectExpression(attribute.expr, out);
  }
  for (const block of body.blocks) collectBody(block.body, out);
}

/** Object items with secret keys, anywhere inside an expression (nested objects, tuples, conditionals, ...). */
function collectExpression(expr: Expression, out: Array<[number, number]>): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const n = node as { kind?: unknown };
    if (n.kind === 'object') {
      for (const item of (node as Extract<Expression, { kind: 'object' }>).items) {
        const key = item.keyIsBareName ?? literalKey(item.key);
        if (key !== null && isSecretName(key)) out.push(span(item.value.range));
        else visit(item.value);
        visit(item.key);
      }
      return;
    }
    for (const [name, value] of Object.entries(node)) {
      if (name === 'range' || name.endsWith('Range') || name === 'value') continue;
      visit(value);
    }
  };
  visit(expr);
}

/** A quoted key's text (`"X-Api-Key" = ...`), or null for a computed key. */
function literalKey(key: Expression): string | null {
  if (key.kind === 'literal' && typeof key.value === 'string') return key.value;
  if (key.kind === 'template' && key.parts.length === 1) {
    const only = key.parts[0]!;
    if (only.kind === 'literal' && typeof only.value === 'string') return only.value;
  }
  if (key.kind === 'template' && key.parts.length === 0) return '';
  if (key.kind === 'scopeTraversal' && key.steps.length === 0) return key.root;
  return null;
}

function span(range: Range): [number, number] {
  return [range.start.byte, range.end.byte];
}
