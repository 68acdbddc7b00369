/**
 * JSON Schema validation of bodies and response headers with ajv (the validator
 * openapi-backend uses for parameters), and the media-type rules of OpenAPI's `content` maps.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its plugin is the module's `default` property.
const addFormats = formatsModule.default;

/** OpenAPI's own formats, as openapi-backend defines them for parameters. */
const OPENAPI_FORMATS = {
  int32: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 },
  int64: { type: 'number', validate: (n: number) => Number.isInteger(n) },
  float: { type: 'number', validate: () => true },
  double: { type: 'number', validate: () => true },
  byte: { type: 'string', validate: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/ },
  binary: { type: 'string', validate: () => true },
  password: { type: 'string', validate: () => true },
} as const;

/** Adds the formats every ajv of a document validator knows (ajv-formats plus OpenAPI's). */
export function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  for (const [name, format] of Object.entries(OPENAPI_FORMATS)) ajv.addFormat(name, format);
  return ajv;
}

export type MediaTypes = Readonly<Record<string, { readonly schema?: unknown }>>;

/** Compiled schemas of one document: typed bodies as they are, strings (form fields, headers) coerced to the schema's types. */
export class SchemaSet {
  readonly #exact = withFormats(new Ajv({ strict: false, logger: false, allErrors: true }));
  readonly #coercing = withFormats(new Ajv({ strict: false, logger: false, allErrors: true, coerceTypes: 'array' }));
  readonly #compiled = new WeakMap<object, ValidateFunction>();
  readonly #compiledCoercing = new WeakMap<object, ValidateFunction>();

  /** Compiles now, so a schema ajv cannot compile fails the load instead of a request. */
  prepare(schema: unknown): void {
    this.#validator(schema, false);
    this.#validator(schema, true);
  }

  /** The violations of `value` (empty when valid or when there is no schema). */
  check(schema: unknown, value: unknown, coerce: boolean): ErrorObject[] {
    const validate = this.#validator(schema, coerce);
    if (!validate || validate(value)) return [];
    return [...(validate.errors ?? [])];
  }

  #validator(schema: unknown, coerce: boolean): ValidateFunction | null {
    if (schema === null || typeof schema !== 'object') return null;
    const cache = coerce ? this.#compiledCoercing : this.#compiled;
    let validate = cache.get(schema);
    if (!validate) {
      validate = (coerce ? this.#coercing : this.#exact).compile(schema);
      cache.set(schema, validate);
    }
    return validate;
  }
}

/** `application/json` from `Application/JSON; charset=utf-8`; null when absent. */
export function mediaTypeOf(headers: Readonly<Record<string, string | readonly string[] | undefined>>): string | null {
  const raw = headers['content-type'];
  const value = typeof raw === 'string' ? raw : raw?.[0];
  const type = value?.split(';')[0]?.trim().toLowerCase();
  return type ? type : null;
}

/** The `content` entry for a media type: exact, then `type/*`, then `*\/*` (OpenAPI's "most specific wins"). */
export function pickMediaType(content: MediaTypes, mediaType: string): string | null {
  const keys = Object.keys(content);
  const lower = keys.map((k) => k.split(';')[0]?.trim().toLowerCase() ?? '');
  const exact = lower.indexOf(mediaType);
  if (exact >= 0) return keys[exact] ?? null;
  const range = lower.indexOf(`${mediaType.split('/')[0]}/*`);
  if (range >= 0) return keys[range] ?? null;
  const any = lower.indexOf('*/*');
  return any >= 0 ? (keys[any] ?? null) : null;
}

export type DecodedBody = { readonly kind: 'value'; readonly value: unknown; readonly coerce: boolean } | { readonly kind: 'opaque' } | { readonly kind: 'invalid'; readonly problem: string };

/**
 * A body as its schema sees it: JSON parsed, a urlencoded form as an object of strings
 * (coerced to the schema's types), text as a string; other types are not validated.
 */
export function decodeBody(mediaType: string, body: Buffer): DecodedBody {
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      return { kind: 'value', value: JSON.parse(body.toString('utf8')) as unknown, coerce: false };
    } catch (error) {
      return { kind: 'invalid', problem: `is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  if (mediaType === 'application/x-www-form-urlencoded') {
    const form: Record<string, string | string[]> = {};
    for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
      const previous = form[name];
      form[name] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
    }
    return { kind: 'value', value: form, coerce: true };
  }
  if (mediaType.startsWith('text/')) return { kind: 'value', value: body.toString('utf8'), coerce: false };
  return { kind: 'opaque' };
}

/** `/name must be string`, `must have required property 'id'`: an ajv error in a sentence. */
export function describeSchemaError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '' : `${error.instancePath} `;
  return `${where}${error.message ?? error.keyword}`;
}
