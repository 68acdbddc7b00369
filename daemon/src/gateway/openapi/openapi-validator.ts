/**
 * One OpenAPI 3 document, ready to check backend traffic against: openapi-backend finds the
 * operation and validates path, query, header and cookie parameters; bodies and responses
 * are validated here with ajv by the media types the document lists.
 */
import { Validator as DocumentValidator } from '@seriousme/openapi-schema-validator';
import type { ErrorObject } from 'ajv';
import { OpenAPIRouter, OpenAPIValidator, type Operation } from 'openapi-backend';
import type { OpenApiDocument } from './openapi-file.js';
import { decodeBody, describeSchemaError, mediaTypeOf, pickMediaType, SchemaSet, withFormats, type MediaTypes } from './openapi-schemas.js';
import { parseUrl } from '../../core/parse-url.js';

type Headers = Readonly<Record<string, string | readonly string[] | undefined>>;
type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OutgoingRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  /** The whole body; null or empty for none. */
  readonly body: Buffer | null;
}

export interface IncomingResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
}

/** The document's operation a request matched (null when none did), and what was wrong with the request. */
export interface RequestCheck {
  readonly operation: OperationRef | null;
  readonly violations: readonly string[];
}

export interface OperationRef {
  readonly method: string;
  readonly path: string;
}

const validators = new WeakMap<object, OpenApiValidator>();

export class OpenApiValidator {
  readonly #document: Json;
  readonly #basePaths: readonly string[];
  readonly #router: OpenAPIRouter;
  readonly #parameters: OpenAPIValidator;
  readonly #schemas = new SchemaSet();

  /** The validator of a loaded document, built once (the load builds it to report what does not compile). */
  static for(document: OpenApiDocument): OpenApiValidator {
    let validator = validators.get(document);
    if (!validator) {
      validator = new OpenApiValidator(document);
      validators.set(document, validator);
    }
    return validator;
  }

  /** Throws when a `$ref` does not resolve or a schema does not compile. */
  private constructor(document: OpenApiDocument) {
    // resolveRefs replaces references in place (cycles stay cycles): work on a copy of the frozen model.
    this.#document = new DocumentValidator().resolveRefs({ specification: structuredClone(document) as Json }) as Json;
    this.#basePaths = basePaths(this.#document);
    // openapi-backend checks parameters only: bodies are checked here by media type, so it gets operations without requestBody.
    const forParameters = withOperationIds(withoutRequestBodies(this.#document));
    this.#router = new OpenAPIRouter({ definition: forParameters as never });
    this.#parameters = new OpenAPIValidator({ definition: forParameters as never, router: this.#router, customizeAjv: (ajv) => withFormats(ajv) });
    for (const operation of this.#router.getOperations()) this.#prepare(this.#operation(operation));
  }

  checkRequest(request: OutgoingRequest): RequestCheck {
    const found = this.#match(request.method, request.url.pathname);
    if ('problem' in found) return { operation: null, violations: [found.problem] };
    const violations = this.#checkParameters(request, found.operation, found.path);
    violations.push(...this.#checkRequestBody(request, this.#operation(found.operation)));
    return { operation: { method: found.operation.method, path: found.operation.path }, violations };
  }

  checkResponse(operation: OperationRef | null, requestMethod: string, response: IncomingResponse): string[] {
    if (operation === null) return ['response: the request matched no operation of the OpenAPI document, so the response cannot be validated'];
    const definition = this.#operation(operation);
    const responses = (definition['responses'] ?? {}) as Record<string, Json>;
    const key = [String(response.status), `${Math.floor(response.status / 100)}XX`, `${Math.floor(response.status / 100)}xx`, 'default'].find((k) => responses[k] !== undefined);
    const spec = key === undefined ? undefined : responses[key];
    if (spec === undefined) return [`response status ${response.status} is not defined for ${operation.method.toUpperCase()} ${operation.path}`];
    const violations = this.#checkResponseHeaders(spec, response.headers);
    const content = spec['content'] as MediaTypes | undefined;
    const bodyless = requestMethod.toUpperCase() === 'HEAD' || response.status === 204 || response.status === 304;
    if (!bodyless && content && response.body.length > 0) violations.push(...this.#checkBody('response', content, response.headers, response.body));
    return violations;
  }

  /** Finds the operation under one of the document's server base paths. */
  #match(method: string, pathname: string): { operation: Operation; path: string } | { problem: string } {
    let methodMissing = false;
    for (const base of this.#basePaths) {
      if (base !== '' && pathname !== base && !pathname.startsWith(`${base}/`)) continue;
      const path = pathname.slice(base.length) || '/';
      try {
        const operation = this.#router.matchOperation({ method, path, headers: {} }, true);
        if (operation) return { operation, path };
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('405')) methodMissing = true;
      }
    }
    if (methodMissing) return { problem: `request: method ${method.toUpperCase()} is not defined for path ${pathname}` };
    const bases = this.#basePaths.filter((b) => b !== '');
    return { problem: `request: no path of the OpenAPI document matches ${pathname}${bases.length > 0 ? ` (server base paths: ${bases.join(', ')})` : ''}` };
  }

  #checkParameters(request: OutgoingRequest, operation: Operation, path: string): string[] {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name] = typeof value === 'string' ? value : value.join(', ');
    const result = this.#parameters.validateRequest({ method: request.method, path, headers, query: request.url.search.slice(1) }, operation);
    // Query parameters the document does not list are allowed, as the peer allows them.
    const errors = (result.errors ?? []).filter((e) => !(e.keyword === 'additionalProperties' && e.instancePath === '/query'));
    return errors.map(describeParameterError);
  }

  #checkRequestBody(request: OutgoingRequest, operation: Json): string[] {
    const requestBody = operation['requestBody'] as Json | undefined;
    if (!requestBody) return [];
    if (request.body === null || request.body.length === 0) return requestBody['required'] === true ? ['request body is required'] : [];
    return this.#checkBody('request', (requestBody['content'] ?? {}) as MediaTypes, request.headers, request.body);
  }

  #checkBody(side: 'request' | 'response', content: MediaTypes, headers: Headers, body: Buffer): string[] {
    const mediaType = mediaTypeOf(headers);
    const listed = Object.keys(content).join(', ');
    if (mediaType === null) return [`${side} body has no Content-Type (expected ${listed})`];
    const key = pickMediaType(content, mediaType);
    if (key === null) return [`${side} Content-Type ${mediaType} is not defined (expected ${listed})`];
    const decoded = decodeBody(mediaType, body);
    if (decoded.kind === 'invalid') return [`${side} body ${decoded.problem}`];
    if (decoded.kind === 'opaque') return [];
    return this.#schemas.check(content[key]?.schema, decoded.value, decoded.coerce).map((e) => `${side} body ${describeSchemaError(e)}`);
  }

  #checkResponseHeaders(spec: Json, headers: Headers): string[] {
    const violations: string[] = [];
    for (const [name, header] of Object.entries((spec['headers'] ?? {}) as Record<string, Json>)) {
      const lower = name.toLowerCase();
      // OpenAPI says a Content-Type header definition is ignored (content describes it).
      if (lower === 'content-type') continue;
      const value = headers[lower];
      if (value === undefined) {
        if (header['required'] === true) violations.push(`response header ${name} is required`);
        continue;
      }
      const text = typeof value === 'string' ? value : value.join(', ');
      const box = { value: text };
      const errors = this.#schemas.check({ type: 'object', properties: { value: header['schema'] ?? {} } }, box, true);
      violations.push(...errors.map((e) => `response header ${name} ${describeSchemaError({ ...e, instancePath: e.instancePath.replace(/^\/value/, '') })}`));
    }
    return violations;
  }

  #operation(ref: OperationRef): Json {
    const item = (this.#document['paths'] as Record<string, Json> | undefined)?.[ref.path];
    return (item?.[ref.method] ?? {}) as Json;
  }

  #prepare(operation: Json): void {
    const requestBody = operation['requestBody'] as Json | undefined;
    for (const media of Object.values((requestBody?.['content'] ?? {}) as MediaTypes)) this.#schemas.prepare(media.schema);
    for (const response of Object.values((operation['responses'] ?? {}) as Record<string, Json>)) {
      for (const media of Object.values((response['content'] ?? {}) as MediaTypes)) this.#schemas.prepare(media.schema);
    }
  }
}

/** `query parameter "limit" must be integer`: where in the request, then what is wrong. */
function describeParameterError(error: ErrorObject): string {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let message = error.message ?? error.keyword;
  if (error.keyword === 'required') {
    segments.push(String((error.params as { missingProperty?: unknown }).missingProperty ?? ''));
    message = 'is required';
  }
  const [location = '', name, ...rest] = segments;
  const label = { query: 'query parameter', path: 'path parameter', header: 'header', cookie: 'cookie' }[location] ?? location;
  if (name === undefined) return `request ${label} ${message}`;
  return `request ${label} ${JSON.stringify(name)}${rest.length > 0 ? ` /${rest.join('/')}` : ''} ${message}`;
}

/** The path part of each `servers` URL (variables at their defaults), longest first; `""` when the document names none. */
function basePaths(document: Json): string[] {
  const servers = Array.isArray(document['servers']) && document['servers'].length > 0 ? (document['servers'] as Json[]) : [{ url: '/' }];
  const paths = new Set<string>();
  for (const server of servers) {
    const variables = (server['variables'] ?? {}) as Record<string, Json>;
    const url = String(server['url'] ?? '/').replace(/\{([^}]+)\}/g, (_, name: string) => String(variables[name]?.['default'] ?? ''));
    const pathname = parseUrl(url)?.pathname ?? new URL(url.startsWith('/') ? url : `/${url}`, 'http://base.invalid').pathname;
    paths.add(decodeURI(pathname).replace(/\/+$/, ''));
  }
  return [...paths].sort((a, b) => b.length - a.length);
}

function withoutRequestBodies(document: Json): Json {
  const paths: Record<string, Json> = {};
  for (const [path, item] of Object.entries((document['paths'] ?? {}) as Record<string, Json>)) {
    const copy: Json = { ...item };
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const { requestBody: _dropped, ...rest } = operation;
      copy[method] = rest;
    }
    paths[path] = copy;
  }
  return { ...document, paths };
}

/** openapi-backend finds validators by operationId: each operation gets a unique one (a document may omit or repeat them). */
function withOperationIds(document: Json): Json {
  for (const [path, item] of Object.entries((document['paths'] ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation) item[method] = { ...operation, operationId: `portico:${method} ${path}` };
    }
  }
  return document;
}
