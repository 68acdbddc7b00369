/**
 * Error body templates: the defaults (JSON for api blocks, an HTML page elsewhere) and
 * `error_file` templates written as the peer's Go templates write them: `{{.http_status}}`,
 * `{{.message}}`, `{{.path}}`, `{{.request_id}}` (spaces inside the braces allowed). Values are
 * escaped for the output type: HTML-escaped for pages, JSON-string-escaped for `.json` files.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';

export type ErrorBodyType = 'json' | 'html';

export interface ErrorTemplateValues {
  readonly http_status: number;
  readonly message: string;
  readonly path: string;
  readonly request_id: string;
}

const VARIABLES = new Set<string>(['http_status', 'message', 'path', 'request_id']);

type Part = { kind: 'text'; text: string } | { kind: 'var'; name: keyof ErrorTemplateValues };

export interface ErrorTemplate {
  readonly type: ErrorBodyType;
  /** Where the template came from, for the log (`default` or the file's path). */
  readonly source: string;
  render(values: ErrorTemplateValues): string;
}

/** Parses template text; throws an Error naming the problem (an unclosed action, an unknown variable, any other action). */
export function parseErrorTemplate(text: string, type: ErrorBodyType, source: string): ErrorTemplate {
  const parts: Part[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('{{', at);
    if (open === -1) {
      parts.push({ kind: 'text', text: text.slice(at) });
      break;
    }
    if (open > at) parts.push({ kind: 'text', text: text.slice(at, open) });
    const close = text.indexOf('}}', open + 2);
    if (close === -1) throw new Error(`${source}: unclosed action "{{" at offset ${open}`);
    const action = text.slice(open + 2, close).trim();
    const name = /^\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(action)?.[1];
    if (name === undefined || !VARIABLES.has(name)) {
      throw new Error(`${source}: unsupported template action "{{${action}}}"; use {{.http_status}}, {{.message}}, {{.path}} or {{.request_id}}`);
    }
    parts.push({ kind: 'var', name: name as keyof ErrorTemplateValues });
    at = close + 2;
  }
  const escape = type === 'json' ? escapeJsonString : escapeHtml;
  return {
    type,
    source,
    render(values) {
      return parts.map((p) => (p.kind === 'text' ? p.text : p.name === 'http_status' ? String(values.http_status) : escape(values[p.name]))).join('');
    },
  };
}

/** The type an `error_file` renders as: `.json` gives JSON, anything else HTML. */
export function errorFileType(path: string): ErrorBodyType {
  return extname(path).toLowerCase() === '.json' ? 'json' : 'html';
}

export interface LoadedErrorFile {
  readonly template: ErrorTemplate | null;
  /** Why the file could not be used (the default of its type is used instead), or null. */
  readonly problem: string | null;
}

/** Reads and parses an `error_file` once, when a runtime is built. */
export function loadErrorFile(path: string): LoadedErrorFile {
  const type = errorFileType(path);
  try {
    return { template: parseErrorTemplate(readFileSync(path, 'utf8'), type, path), problem: null };
  } catch (error) {
    return { template: null, problem: error instanceof Error ? error.message : String(error) };
  }
}

export const DEFAULT_JSON_TEMPLATE: ErrorTemplate = {
  type: 'json',
  source: 'default',
  render: (v) => JSON.stringify({ error: { id: v.request_id, message: v.message, path: v.path, status: v.http_status } }),
};

export const DEFAULT_HTML_TEMPLATE: ErrorTemplate = {
  type: 'html',
  source: 'default',
  render: (v) => {
    const title = escapeHtml(`${v.http_status} ${v.message}`);
    return [
      '<!DOCTYPE html>',
      '<html lang="en">',
      '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
      `<title>${title}</title>`,
      '<style>body{font-family:system-ui,sans-serif;margin:3rem auto;max-width:40rem;color:#222}dt{font-weight:600}code{font-size:.95em}</style>',
      '</head>',
      '<body>',
      `<h1>${title}</h1>`,
      '<dl>',
      `<dt>Status</dt><dd>${v.http_status}</dd>`,
      `<dt>Message</dt><dd>${escapeHtml(v.message)}</dd>`,
      `<dt>Path</dt><dd><code>${escapeHtml(v.path)}</code></dd>`,
      `<dt>Request ID</dt><dd><code>${escapeHtml(v.request_id)}</code></dd>`,
      '</dl>',
      '</body>',
      '</html>',
      '',
    ].join('\n');
  },
};

export function defaultTemplate(type: ErrorBodyType): ErrorTemplate {
  return type === 'json' ? DEFAULT_JSON_TEMPLATE : DEFAULT_HTML_TEMPLATE;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The inside of a JSON string literal (no quotes), also safe in `<script>`. */
export function escapeJsonString(text: string): string {
  return JSON.stringify(text).slice(1, -1).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}
