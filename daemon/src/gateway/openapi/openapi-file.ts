/**
 * Reading a backend's OpenAPI file at load: YAML or JSON (YAML 1.2 reads both), parsed with
 * positions so a problem can name the line and column inside the file.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';

export type OpenApiDocument = Readonly<Record<string, unknown>>;

export type OpenApiRead = { readonly ok: true; readonly document: OpenApiDocument } | { readonly ok: false; readonly problem: string };

interface Source {
  readonly name: string;
  readonly yaml: Document;
  readonly lines: LineCounter;
}

/** Where each document came from, to position later problems (schema violations) inside its file. */
const sources = new WeakMap<object, Source>();

export function readOpenApiFile(path: string): OpenApiRead {
  const name = basename(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { ok: false, problem: `${name} cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  const lines = new LineCounter();
  const yaml = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const [syntax] = yaml.errors;
  if (syntax) {
    const { line, col } = lines.linePos(syntax.pos[0]);
    return { ok: false, problem: `${name}:${line},${col}: ${syntax.message.replace(/\s+/g, ' ')}` };
  }
  let value: unknown;
  try {
    value = yaml.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, problem: `${name}: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, problem: `${name} is not an OpenAPI 3 document: it holds no mapping` };
  const version = (value as Record<string, unknown>)['openapi'];
  if (typeof version !== 'string' || !/^3\.\d+\.\d+/.test(version)) {
    const swagger = (value as Record<string, unknown>)['swagger'];
    const why = typeof swagger === 'string' ? `it is Swagger ${swagger}; convert it to OpenAPI 3` : `its "openapi" field must be a 3.x.y version string, got ${JSON.stringify(version ?? null)}`;
    return { ok: false, problem: `${atPointer(value, '/openapi', name) ?? name}: not an OpenAPI 3 document: ${why}` };
  }
  sources.set(value, { name, yaml, lines });
  return { ok: true, document: value as OpenApiDocument };
}

/** `api.yaml:12,7` for a JSON pointer into a document read here (the nearest existing parent when the pointer goes further); null for another object. */
export function atPointer(document: object, pointer: string, name?: string): string | null {
  const source = sources.get(document);
  if (!source) return null;
  const keys = pointer.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: Node | null = source.yaml.contents;
  for (const key of keys) {
    const next: Node | null = childOf(node, key);
    if (next === null) break;
    node = next;
  }
  const offset = node?.range?.[0];
  if (offset === undefined) return name ?? source.name;
  const { line, col } = source.lines.linePos(offset);
  return `${name ?? source.name}:${line},${col}`;
}

function childOf(node: Node | null, key: string): Node | null {
  if (isMap(node)) {
    const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === key);
    // The key's position reads better than the value's for a mapping value.
    return (pair?.value as Node | null | undefined) ?? (isScalar(pair?.key) ? pair.key : null);
  }
  if (isSeq(node)) return (node.items[Number(key)] as Node | undefined) ?? null;
  return null;
}
