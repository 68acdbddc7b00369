import { createRequire } from 'node:module';
import { PorticoError } from '../../../core/errors.js';

/** The namespaces SAML documents use, bound to the prefixes our XPath expressions write. */
export const SAML_NS = {
  md: 'urn:oasis:names:tc:SAML:2.0:metadata',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
  saml: 'urn:oasis:names:tc:SAML:2.0:assertion',
  samlp: 'urn:oasis:names:tc:SAML:2.0:protocol',
} as const;

/** The part of a DOM element the SAML code reads. */
export interface XmlElement {
  readonly nodeType: number;
  readonly localName: string;
  readonly namespaceURI: string | null;
  readonly textContent: string | null;
  getAttributeNode(name: string): { readonly value: string } | null;
}

export interface XmlDocument {
  readonly documentElement: XmlElement;
}

/** Not well-formed XML; line and column are 1-based when the parser knew them. */
export class XmlSyntaxError extends PorticoError {
  override name = 'XmlSyntaxError';
  constructor(
    readonly detail: string,
    readonly line: number | null,
    readonly column: number | null,
  ) {
    super('XML_SYNTAX', line === null ? `XML syntax error: ${detail}` : `XML syntax error at ${line},${column ?? 1}: ${detail}`);
  }
}

interface Locator {
  lineNumber?: number;
  columnNumber?: number;
}
type ErrorListener = (message: string) => void;
interface XmldomModule {
  DOMParser: new (options: { locator: Locator; errorHandler: { warning: ErrorListener; error: ErrorListener; fatalError: ErrorListener } }) => {
    parseFromString(source: string, mimeType: string): { readonly documentElement: XmlElement | null };
  };
}
interface XpathModule {
  useNamespaces(namespaces: Record<string, string>): (expression: string, node: unknown) => unknown;
}

// xmldom's and xpath's typings pull lib.dom into the program, and the daemon's tsconfig keeps DOM out.
const require = createRequire(import.meta.url);
const { DOMParser } = require('@xmldom/xmldom') as XmldomModule;
const select = (require('xpath') as XpathModule).useNamespaces(SAML_NS);

const ELEMENT_NODE = 1;

/** Parses `source`, treating every xmldom warning and error as fatal (0.8 only reports them by default). */
export function parseXml(source: string): XmlDocument {
  const locator: Locator = {};
  let first: XmlSyntaxError | null = null;
  const fail: ErrorListener = (message) => {
    first ??= new XmlSyntaxError(cleanMessage(message), positive(locator.lineNumber), positive(locator.columnNumber));
    throw first;
  };
  let documentElement: XmlElement | null;
  try {
    documentElement = new DOMParser({ locator, errorHandler: { warning: fail, error: fail, fatalError: fail } }).parseFromString(source, 'text/xml').documentElement;
  } catch (error) {
    // xmldom wraps a listener's throw in another error report; the first one says what was wrong.
    throw first ?? new XmlSyntaxError(error instanceof Error ? error.message : String(error), null, null);
  }
  if (documentElement === null) throw new XmlSyntaxError('no root element', null, null);
  return { documentElement };
}

/** Elements selected by a namespace-aware XPath (prefixes of SAML_NS) below `context`. */
export function selectElements(expression: string, context: XmlElement): XmlElement[] {
  const result = select(expression, context);
  return Array.isArray(result) ? result.filter(isElement) : [];
}

export function firstElement(expression: string, context: XmlElement): XmlElement | null {
  return selectElements(expression, context)[0] ?? null;
}

/** The attribute's value, or null when absent (xmldom's getAttribute says '' for both). */
export function attribute(element: XmlElement, name: string): string | null {
  return element.getAttributeNode(name)?.value ?? null;
}

/** The element's text with surrounding whitespace removed, as pretty-printed XML adds it. */
export function text(element: XmlElement): string {
  return (element.textContent ?? '').trim();
}

export function isSamlElement(element: XmlElement, namespace: keyof typeof SAML_NS, localName: string): boolean {
  return element.namespaceURI === SAML_NS[namespace] && element.localName === localName;
}

/** Escapes text for an XML attribute value or element content. */
export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c);
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

function isElement(node: unknown): node is XmlElement {
  return typeof node === 'object' && node !== null && (node as { nodeType?: unknown }).nodeType === ELEMENT_NODE;
}

function positive(n: number | undefined): number | null {
  return n !== undefined && n > 0 ? n : null;
}

/** xmldom's report without its `[xmldom warning]` tag and `@#[line:..]` suffix. */
function cleanMessage(message: string): string {
  return message
    .replace(/^\[xmldom \w+\]\s*/, '')
    .replace(/^element parse error: (Error: )?/, '')
    .replace(/\n@.*$/s, '')
    .trim();
}
