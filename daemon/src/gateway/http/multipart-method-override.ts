/**
 * `_method` fields in a POST's multipart/form-data body: Rails (Rack::MethodOverride), Laravel
 * and Symfony read them as they read an urlencoded form's (docs/gateway.md, "Method overrides").
 * A buffered body is read whole before the checks; a streamed one (an upload) goes to the
 * backend as it arrives, through a guard that reads its fields on the way and holds back its
 * last piece until the whole body was read: a method the endpoint refuses stops the request
 * before the backend has the complete body, which is when frameworks act on it.
 */
import { PassThrough, Transform, type TransformCallback } from 'node:stream';
import { multipartBoundary, readMultipart, type PartSink } from '../../core/multipart-stream.js';
import type { RequestInfo } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import { mediaType } from '../eval/http-variables.js';
import { namedMethod, namesMethodParam, paramSource, type MethodOverride } from './method-override.js';

export const MULTIPART_MEDIA_TYPE = 'multipart/form-data';

/** A longer `_method` value is no method token anyway; reading stops there and the check refuses it. */
const MAX_VALUE_BYTES = 256;

/** A POST with a multipart/form-data body, whose `_method` fields frameworks honour as an urlencoded form's. */
export function isMultipartPost(method: string, contentType: string | readonly string[] | undefined): boolean {
  return method === 'POST' && mediaType(contentType) === MULTIPART_MEDIA_TYPE;
}

/** The methods the `_method` fields of a buffered multipart POST body name, as `formMethodOverrides` gives an urlencoded one's. */
export async function multipartMethodOverrides(request: RequestInfo, body: Buffer): Promise<readonly MethodOverride[]> {
  const found: MethodOverride[] = [];
  try {
    await scanFields(request, [body], (o) => {
      if (!found.some((f) => f.method === o.method)) found.push(o);
    });
  } catch (error) {
    throw asRefusal(error);
  }
  return found;
}

/**
 * The client body of a multipart POST on its way to the backend: each `_method` field goes to
 * `check` as soon as it was read (`alsoCheck` adds a check once the permission is known); the
 * last piece of the body follows only once the whole body was read and every check passed. A
 * refusal, or a body that is not multipart/form-data as RFC 7578 writes it, ends the stream with
 * that error (a GatewayError: 405, 403 or 400), which ends the backend request with it.
 */
export class MultipartOverrideGuard extends Transform {
  readonly #scan = new PassThrough();
  readonly #read: Promise<void>;
  readonly #checks: Array<(override: MethodOverride) => void>;
  readonly #seen: MethodOverride[] = [];
  #held: Buffer | null = null;
  #failure: GatewayError | null = null;

  constructor(request: RequestInfo, check: (override: MethodOverride) => void) {
    super();
    this.#checks = [check];
    this.#read = scanFields(request, this.#scan, (o) => {
      this.#seen.push(o);
      for (const c of this.#checks) c(o);
    }).catch((error: unknown) => {
      this.#failure = asRefusal(error);
      this.destroy(this.#failure);
    });
  }

  /** Runs `check` on the fields read so far and on every later one. */
  alsoCheck(check: (override: MethodOverride) => void): void {
    for (const o of this.#seen) check(o);
    this.#checks.push(check);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const held = this.#held;
    this.#held = chunk;
    const pass = (): void => callback(null, held ?? undefined);
    if (this.#scan.write(chunk)) pass();
    else this.#scan.once('drain', pass);
  }

  override _flush(callback: TransformCallback): void {
    this.#scan.end();
    void this.#read.then(() => {
      if (this.#failure) callback(this.#failure);
      else callback(null, this.#held ?? undefined);
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#scan.destroy();
    callback(error);
  }
}

/** Reads `source` as the request's multipart body and passes each `_method` text field to `found`. */
async function scanFields(request: RequestInfo, source: AsyncIterable<Buffer> | Iterable<Buffer>, found: (override: MethodOverride) => void): Promise<void> {
  const contentType = request.headers['content-type'];
  const boundary = multipartBoundary(typeof contentType === 'string' ? contentType : (contentType?.[0] ?? ''));
  await readMultipart(toAsync(source), boundary, (part): PartSink => {
    // A file part named `_method` is a file to these frameworks, not a parameter.
    if (part.filename !== null || !namesMethodParam(part.name)) return DISCARD;
    const via = paramSource(part.name, 'form field');
    const bytes: Buffer[] = [];
    let length = 0;
    return {
      data(chunk) {
        if (length > MAX_VALUE_BYTES) return;
        bytes.push(chunk);
        length += chunk.length;
      },
      end() {
        const override = namedMethod(request.method, Buffer.concat(bytes).toString('utf8').trim(), via);
        if (override) found(override);
      },
    };
  });
}

const DISCARD: PartSink = { data() {}, end() {} };

async function* toAsync(source: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncIterable<Buffer> {
  yield* source;
}

function asRefusal(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  // A MultipartError says what in the body is wrong; anything else the reader threw, as it is.
  const cause = error instanceof Error ? error.message : String(error);
  return new GatewayError('client_request', `the multipart/form-data body could not be read for its _method fields: ${cause}`);
}
