import protobuf from 'protobufjs';
import { PorticoError } from '../core/errors.js';

/**
 * Canonical proto3 JSON (https://protobuf.dev/programming-guides/json/) over protobufjs
 * reflection, which has no canonical mapping of its own (its toObject gives durations as
 * {seconds} and wrappers as {value}). Emits the proto field names (snake_case), as Envoy's
 * REST client does; reads both proto and lowerCamel names, enum names or numbers, and ignores
 * unknown fields. Any is `{"@type": url, ...fields}` resolved against the same root.
 */

export class ProtoJsonError extends PorticoError {
  override readonly name = 'ProtoJsonError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super('proto_json_invalid', `${path || 'body'}: ${reason}`, { category: 'invalid' });
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Msg = Record<string, unknown>;

const WRAPPERS = new Set(['DoubleValue', 'FloatValue', 'Int64Value', 'UInt64Value', 'Int32Value', 'UInt32Value', 'BoolValue', 'StringValue', 'BytesValue'].map((n) => `.google.protobuf.${n}`));
const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

// ---------------------------------------------------------------- message -> JSON

/** A protobufjs message instance (decoded or built with fromObject) as canonical JSON. */
export function toProtoJson(type: protobuf.Type, message: object): Json {
  return messageToJson(type, message as Msg);
}

function messageToJson(type: protobuf.Type, msg: Msg): Json {
  const special = wellKnownToJson(type, msg);
  if (special !== undefined) return special;
  const out: Record<string, Json> = {};
  for (const field of type.fieldsArray) {
    const value = msg[field.name];
    if (value === undefined || value === null) continue;
    if (field.map) {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length === 0) continue;
      out[field.name] = Object.fromEntries(entries.map(([k, v]) => [k, valueToJson(field, v)]));
    } else if (field.repeated) {
      const list = value as unknown[];
      if (list.length === 0) continue;
      out[field.name] = list.map((v) => valueToJson(field, v));
    } else {
      const inOneof = field.partOf !== null && Object.prototype.hasOwnProperty.call(msg, field.name);
      if (!inOneof && isDefault(field, value)) continue;
      out[field.name] = valueToJson(field, value);
    }
  }
  return out;
}

function isDefault(field: protobuf.Field, value: unknown): boolean {
  if (field.resolvedType instanceof protobuf.Type) return false;
  if (typeof value === 'object' && value !== null && 'low' in value) return Number(value.toString()) === 0;
  if (value instanceof Uint8Array) return value.length === 0;
  return value === 0 || value === '' || value === false;
}

function valueToJson(field: protobuf.Field, value: unknown): Json {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return messageToJson(resolved, value as Msg);
  if (resolved instanceof protobuf.Enum) return resolved.valuesById[value as number] ?? (value as number);
  return scalarToJson(field.type, value);
}

function scalarToJson(kind: string, value: unknown): Json {
  if (LONG_TYPES.has(kind)) return String(value);
  if (kind === 'bytes') return Buffer.from(value as Uint8Array).toString('base64');
  if (kind === 'double' || kind === 'float') {
    const n = value as number;
    return Number.isFinite(n) ? n : Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
  }
  return value as Json;
}

function wellKnownToJson(type: protobuf.Type, msg: Msg): Json | undefined {
  const name = type.fullName;
  if (WRAPPERS.has(name)) return scalarToJson(type.fields['value']!.type, msg['value'] ?? defaultScalar(type.fields['value']!.type));
  switch (name) {
    case '.google.protobuf.Duration':
      return formatDuration(Number(String(msg['seconds'] ?? 0)), Number(msg['nanos'] ?? 0));
    case '.google.protobuf.Timestamp':
      return formatTimestamp(Number(String(msg['seconds'] ?? 0)), Number(msg['nanos'] ?? 0));
    case '.google.protobuf.Struct':
      return structToJson(msg);
    case '.google.protobuf.ListValue':
      return ((msg['values'] as Msg[] | undefined) ?? []).map(structValueToJson);
    case '.google.protobuf.Value':
      return structValueToJson(msg);
    case '.google.protobuf.Empty':
      return {};
    case '.google.protobuf.Any':
      return anyToJson(type.root as protobuf.Root, msg);
    default:
      return undefined;
  }
}

function defaultScalar(kind: string): unknown {
  if (kind === 'bool') return false;
  if (kind === 'string') return '';
  if (kind === 'bytes') return new Uint8Array();
  return 0;
}

// protobufjs bundles google/protobuf/struct.proto pre-parsed with camelCase field names
// (stringValue, ...), whatever keepCase says; the wire numbers are the standard ones.
function structToJson(struct: Msg): Json {
  return Object.fromEntries(Object.entries((struct['fields'] as Record<string, Msg> | undefined) ?? {}).map(([k, v]) => [k, structValueToJson(v)]));
}

function structValueToJson(v: Msg): Json {
  const has = (key: string): boolean => v[key] !== undefined && v[key] !== null;
  if (has('structValue')) return structToJson(v['structValue'] as Msg);
  if (has('listValue')) return (((v['listValue'] as Msg)['values'] as Msg[] | undefined) ?? []).map(structValueToJson);
  if (Object.prototype.hasOwnProperty.call(v, 'stringValue') && has('stringValue')) return v['stringValue'] as string;
  if (Object.prototype.hasOwnProperty.call(v, 'numberValue') && has('numberValue')) return v['numberValue'] as number;
  if (Object.prototype.hasOwnProperty.call(v, 'boolValue') && has('boolValue')) return v['boolValue'] as boolean;
  return null;
}

function anyToJson(root: protobuf.Root, msg: Msg): Json {
  const url = String(msg['type_url'] ?? '');
  if (url === '') return {};
  const inner = typeForUrl(root, url, 'Any');
  const decoded = inner.decode((msg['value'] as Uint8Array | undefined) ?? new Uint8Array()) as unknown as Msg;
  const json = messageToJson(inner, decoded);
  if (inner.fullName.startsWith('.google.protobuf.') && (WRAPPERS.has(inner.fullName) || !isPlainObject(json) || inner.fullName === '.google.protobuf.Struct')) {
    return { '@type': url, value: json };
  }
  return { '@type': url, ...(json as Record<string, Json>) };
}

function typeForUrl(root: protobuf.Root, url: string, path: string): protobuf.Type {
  const name = url.slice(url.lastIndexOf('/') + 1);
  const found = name ? root.lookup(name) : null;
  if (!(found instanceof protobuf.Type)) throw new ProtoJsonError(path, `unknown Any type ${JSON.stringify(url)}`);
  return found;
}

export function formatDuration(seconds: number, nanos: number): string {
  const negative = seconds < 0 || nanos < 0;
  const s = Math.abs(seconds);
  const n = Math.abs(nanos);
  return `${negative ? '-' : ''}${s}${fraction(n)}s`;
}

function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) return `.${digits.slice(0, 3)}`;
  if (nanos % 1_000 === 0) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}

function formatTimestamp(seconds: number, nanos: number): string {
  const iso = new Date(seconds * 1000).toISOString().slice(0, 19);
  return `${iso}${fraction(nanos)}Z`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------- JSON -> message

/** Parses canonical (or lenient camelCase) proto3 JSON into a message instance; throws ProtoJsonError naming the field. */
export function fromProtoJson(type: protobuf.Type, json: unknown): protobuf.Message {
  return type.fromObject(messageFromJson(type, json, ''));
}

function messageFromJson(type: protobuf.Type, json: unknown, path: string): Msg {
  const special = wellKnownFromJson(type, json, path);
  if (special !== undefined) return special;
  if (!isPlainObject(json)) throw new ProtoJsonError(path, `expected a JSON object for ${type.name}, got ${describe(json)}`);
  const out: Msg = {};
  const oneofSeen = new Map<string, string>();
  for (const [key, value] of Object.entries(json)) {
    // Own fields only: a key such as `constructor` or `toString` is an unknown field, not Object's.
    const field = (Object.hasOwn(type.fields, key) ? type.fields[key] : undefined) ?? type.fieldsArray.find((f) => camel(f.name) === key);
    if (!field) continue; // unknown fields are ignored: a client built with newer protos still gets through
    const where = path ? `${path}.${field.name}` : field.name;
    if (value === null && field.resolvedType?.fullName !== '.google.protobuf.Value') continue;
    if (field.partOf) {
      const other = oneofSeen.get(field.partOf.name);
      if (other) throw new ProtoJsonError(where, `only one of ${other} and ${field.name} may be set (oneof ${field.partOf.name})`);
      oneofSeen.set(field.partOf.name, field.name);
    }
    if (field.map) {
      if (!isPlainObject(value)) throw new ProtoJsonError(where, `expected a JSON object (map), got ${describe(value)}`);
      out[field.name] = Object.fromEntries(Object.entries(value).map(([k, v]) => [mapKey(field, k, `${where}[${k}]`), fieldFromJson(field, v, `${where}[${k}]`)]));
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw new ProtoJsonError(where, `expected a JSON array, got ${describe(value)}`);
      out[field.name] = value.map((v, i) => fieldFromJson(field, v, `${where}[${i}]`));
    } else {
      out[field.name] = fieldFromJson(field, value, where);
    }
  }
  return out;
}

function mapKey(field: protobuf.Field, key: string, path: string): string {
  const keyType = (field as unknown as protobuf.MapField).keyType;
  if (keyType === 'bool' && key !== 'true' && key !== 'false') throw new ProtoJsonError(path, 'map key must be true or false');
  if (keyType !== 'string' && keyType !== 'bool' && !/^-?\d+$/.test(key)) throw new ProtoJsonError(path, `map key must be an integer, got ${JSON.stringify(key)}`);
  return key;
}

function fieldFromJson(field: protobuf.Field, value: unknown, path: string): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return messageFromJson(resolved, value, path);
  if (resolved instanceof protobuf.Enum) return enumFromJson(resolved, value, path);
  return scalarFromJson(field.type, value, path);
}

function enumFromJson(e: protobuf.Enum, value: unknown, path: string): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && Object.hasOwn(e.values, value)) return e.values[value]!;
  throw new ProtoJsonError(path, `expected one of ${Object.keys(e.values).join(', ')} (${e.name}), got ${describe(value)}`);
}

const INT_RANGES: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  sint32: [-(2 ** 31), 2 ** 31 - 1],
  sfixed32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  fixed32: [0, 2 ** 32 - 1],
};

function scalarFromJson(kind: string, value: unknown, path: string): unknown {
  switch (kind) {
    case 'string':
      if (typeof value !== 'string') throw new ProtoJsonError(path, `expected a string, got ${describe(value)}`);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new ProtoJsonError(path, `expected true or false, got ${describe(value)}`);
      return value;
    case 'bytes':
      if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) throw new ProtoJsonError(path, `expected base64 text, got ${describe(value)}`);
      return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    case 'double':
    case 'float': {
      if (value === 'NaN') return NaN;
      if (value === 'Infinity') return Infinity;
      if (value === '-Infinity') return -Infinity;
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      if (typeof n !== 'number' || Number.isNaN(n)) throw new ProtoJsonError(path, `expected a number, got ${describe(value)}`);
      return n;
    }
    default: {
      const text = typeof value === 'number' ? (Number.isInteger(value) ? String(value) : '') : typeof value === 'string' ? value.trim() : '';
      if (!/^-?\d+$/.test(text)) throw new ProtoJsonError(path, `expected an integer (${kind}), got ${describe(value)}`);
      const range = INT_RANGES[kind];
      if (range && (Number(text) < range[0] || Number(text) > range[1])) throw new ProtoJsonError(path, `${text} is out of range for ${kind}`);
      if (LONG_TYPES.has(kind)) {
        const big = BigInt(text);
        const unsigned = kind === 'uint64' || kind === 'fixed64';
        if (unsigned ? big < 0n || big > 2n ** 64n - 1n : big < -(2n ** 63n) || big > 2n ** 63n - 1n) throw new ProtoJsonError(path, `${text} is out of range for ${kind}`);
        return text;
      }
      return Number(text);
    }
  }
}

function wellKnownFromJson(type: protobuf.Type, json: unknown, path: string): Msg | undefined {
  const name = type.fullName;
  if (WRAPPERS.has(name)) return { value: scalarFromJson(type.fields['value']!.type, json, path) };
  switch (name) {
    case '.google.protobuf.Duration':
      return parseDuration(json, path);
    case '.google.protobuf.Timestamp': {
      const ms = typeof json === 'string' ? Date.parse(json) : NaN;
      if (Number.isNaN(ms)) throw new ProtoJsonError(path, `expected an RFC 3339 time such as "2020-01-01T00:00:00Z", got ${describe(json)}`);
      const nanosText = /\.(\d{1,9})/.exec(json as string)?.[1] ?? '';
      return { seconds: String(Math.floor(ms / 1000)), nanos: Number(nanosText.padEnd(9, '0') || '0') };
    }
    case '.google.protobuf.Struct':
      if (!isPlainObject(json)) throw new ProtoJsonError(path, `expected a JSON object, got ${describe(json)}`);
      return { fields: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, structValueFromJson(v)])) };
    case '.google.protobuf.ListValue':
      if (!Array.isArray(json)) throw new ProtoJsonError(path, `expected a JSON array, got ${describe(json)}`);
      return { values: json.map(structValueFromJson) };
    case '.google.protobuf.Value':
      return structValueFromJson(json);
    case '.google.protobuf.Empty':
      if (!isPlainObject(json)) throw new ProtoJsonError(path, `expected {}, got ${describe(json)}`);
      return {};
    case '.google.protobuf.Any':
      return anyFromJson(type.root as protobuf.Root, json, path);
    default:
      return undefined;
  }
}

function structValueFromJson(v: unknown): Msg {
  if (v === null) return { nullValue: 0 };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(structValueFromJson) } };
  return { structValue: { fields: Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, structValueFromJson(x)])) } };
}

function anyFromJson(root: protobuf.Root, json: unknown, path: string): Msg {
  if (!isPlainObject(json)) throw new ProtoJsonError(path, `expected a JSON object with "@type", got ${describe(json)}`);
  const url = json['@type'];
  if (url === undefined && Object.keys(json).length === 0) return {};
  if (typeof url !== 'string' || url === '') throw new ProtoJsonError(path, 'an Any needs "@type" (e.g. "type.googleapis.com/proxy.api.v2.Cluster")');
  const inner = typeForUrl(root, url, `${path}["@type"]`);
  const { '@type': _ignored, ...rest } = json;
  const body = inner.fullName.startsWith('.google.protobuf.') && 'value' in rest && wellKnownNeedsValue(inner) ? rest['value'] : rest;
  const message = inner.fromObject(messageFromJson(inner, body, path));
  return { type_url: url, value: inner.encode(message).finish() };
}

function wellKnownNeedsValue(type: protobuf.Type): boolean {
  return WRAPPERS.has(type.fullName) || ['Duration', 'Timestamp', 'Struct', 'ListValue', 'Value', 'FieldMask'].some((n) => type.fullName === `.google.protobuf.${n}`);
}

function parseDuration(json: unknown, path: string): Msg {
  const match = typeof json === 'string' ? /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(json) : null;
  if (!match) throw new ProtoJsonError(path, `expected a duration such as "1.5s", got ${describe(json)}`);
  const sign = match[1] ? -1 : 1;
  const seconds = Number(match[2]);
  if (seconds > 315_576_000_000) throw new ProtoJsonError(path, 'duration is out of range');
  const nanos = Number((match[3] ?? '').padEnd(9, '0') || '0');
  return { seconds: String(sign * seconds), nanos: sign * nanos };
}

function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}
