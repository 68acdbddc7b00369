import { parse, type Body, type Expression, type Range, type SourceExcerpt } from '../../hcl/index.js';

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
  const found: Range[] = [];
  collectBody(parsed.body, found);
  const ranges = found.map(span).sort((a, b) => a[0] - b[0]);
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

/**
 * An excerpt of a file that may not load (a rejected save) with the secret values on its
 * lines shown as `"***"`: the parser's partial tree of `text` says where they are (a string
 * left open is closed at its line break, so its attribute is still found), and the caret
 * moves with the text. A line the excerpt had to cut hides the whole line when it holds one.
 * `found` is `secretRanges(text)`.
 */
export function redactExcerpt(excerpt: SourceExcerpt, text: string, found: readonly Range[]): SourceExcerpt {
  if (found.length === 0) return excerpt;
  const source = text.replace(/^\ufeff/, '').split('\n');
  let { startColumn, endColumn } = excerpt;
  const lines = excerpt.lines.map((line, i) => {
    const n = excerpt.firstLine + i;
    const cps = [...line];
    const hits = found
      .filter((r) => r.start.line <= n && r.end.line >= n)
      .map((r) => ({ from: r.start.line === n ? r.start.column - 1 : 0, to: r.end.line === n ? r.end.column - 1 : cps.length }))
      .filter((h, _, all) => !all.some((o) => o !== h && o.from <= h.from && o.to >= h.to && (o.from < h.from || o.to > h.to)))
      .sort((a, b) => b.from - a.from);
    if (hits.length === 0) return line;
    if ((source[n - 1] ?? '').replace(/\r$/, '') !== line) {
      if (n === excerpt.line) [startColumn, endColumn] = [1, REDACTED.length + 1];
      return REDACTED;
    }
    // Rightmost first, so the columns of the ones further left stay valid.
    for (const { from, to } of hits) {
      // A string left open stays open in the mask: the excerpt is there to show that.
      const value = cps.slice(from, to).join('');
      const mask = value.startsWith('"') && (value.length === 1 || !/[^\\]"$/.test(value)) ? '"***' : REDACTED;
      cps.splice(from, to - from, mask);
      if (n !== excerpt.line) continue;
      const shifted = (column: number): number => column - (to - from) + mask.length;
      const start = startColumn <= from + 1 ? startColumn : startColumn > to ? shifted(startColumn) : from + 1;
      const end = endColumn <= from + 1 ? endColumn : endColumn > to ? shifted(endColumn) : from + 1 + mask.length;
      [startColumn, endColumn] = [start, Math.max(start + 1, end)];
    }
    return cps.join('');
  });
  return { ...excerpt, lines, startColumn, endColumn };
}

/** Where the secret values of `text` are, from its parse tree (partial when the text has errors). */
export function secretRanges(text: string, filename: string): Range[] {
  const found: Range[] = [];
  collectBody(parse(text, filename).body, found);
  return found;
}

function collectBody(body: Body, out: Range[]): void {
  for (const attribute of Object.values(body.attributes)) {
    if (isSecretName(attribute.name)) out.push(attribute.expr.range);
    else collectExpression(attribute.expr, out);
  }
  for (const block of body.blocks) collectBody(block.body, out);
}

/** Object items with secret keys, anywhere inside an expression (nested objects, tuples, conditionals, ...). */
function collectExpression(expr: Expression, out: Range[]): void {
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
        if (key !== null && isSecretName(key)) out.push(item.value.range);
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
