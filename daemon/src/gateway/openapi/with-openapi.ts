import { Readable } from 'node:stream';
import { notSentRecord } from '../backend/backend-client.js';
import type { BackendOpenApiConfig } from '../config/model.js';
import type { BackendClient, BackendRequest, BackendResponse } from '../contracts.js';
import { GatewayError } from '../errors/error-types.js';
import type { HeldRecords } from './held-records.js';
import { OpenApiValidator } from './openapi-validator.js';

/** A body read to validate it is held in memory; past this it is not validated but reported. */
export const MAX_VALIDATED_BODY_BYTES = 64 * 1024 * 1024;

/**
 * The backend's client with OpenAPI validation: a request the document does not allow is
 * not sent (`backend_openapi_validation`, 400), a response it does not allow fails the
 * request (502); with the `ignore_*` flags they pass and the violations are only logged in
 * the backend line's `validation`. The response body is read whole to validate it.
 */
export function withOpenApi(client: BackendClient, config: BackendOpenApiConfig, records: HeldRecords): BackendClient {
  const validator = OpenApiValidator.for(config.document);
  const name = client.config.name;
  const failure = (status: number, violations: readonly string[]): GatewayError =>
    new GatewayError('backend_openapi_validation', `backend "${name}": ${violations.join('; ')}`, { status, source: name });

  return {
    config: client.config,
    send: async function sendValidated(request: BackendRequest): Promise<BackendResponse> {
      const requestBody = await readUpTo(toStream(request.body), MAX_VALIDATED_BODY_BYTES);
      const whole = requestBody.rest === null ? Buffer.concat(requestBody.chunks) : null;
      const checked = whole === null
        ? { operation: null, violations: [`request body exceeds ${MAX_VALIDATED_BODY_BYTES} bytes and cannot be validated`] }
        : validator.checkRequest({ method: request.method, url: request.url, headers: request.headers, body: whole });
      if (checked.violations.length > 0 && !config.ignoreRequestViolations) {
        const error = failure(400, checked.violations);
        records.writeNow(notSentRecord(name, request, error), { violations: checked.violations, error: null });
        throw error;
      }
      const body = request.body === null ? null : whole ?? Readable.from(replay(requestBody), { objectMode: false });
      records.hold(request.requestId, request.handler);
      let outcome = { violations: checked.violations, error: null as GatewayError | null };
      try {
        // A spread copies own properties only: `signal` may be a getter of the request's class.
        const response = await client.send({ ...request, signal: request.signal, body });
        const read = await readUpTo(response.body, MAX_VALIDATED_BODY_BYTES);
        const responseViolations = read.rest !== null
          ? [`response body exceeds ${MAX_VALIDATED_BODY_BYTES} bytes and cannot be validated`]
          : validator.checkResponse(checked.operation, request.method, { status: response.status, headers: response.headers, body: Buffer.concat(read.chunks) });
        const violations = [...checked.violations, ...responseViolations];
        if (responseViolations.length > 0 && !config.ignoreResponseViolations) {
          if (read.rest !== null) response.body.destroy();
          outcome = { violations, error: failure(502, responseViolations) };
          throw outcome.error;
        }
        outcome = { violations, error: null };
        return { status: response.status, headers: response.headers, body: Readable.from(replay(read), { objectMode: false }) };
      } finally {
        records.release(request.requestId, request.handler, outcome);
      }
    },
  };
}

interface PartRead {
  readonly chunks: Buffer[];
  /** The rest of the stream when it was longer than the limit; null when read to its end. */
  readonly rest: AsyncIterator<unknown> | null;
}

/** Reads a stream up to `limit` bytes, keeping the rest readable (an ignored violation still passes the whole body). */
async function readUpTo(stream: Readable | null, limit: number): Promise<PartRead> {
  const chunks: Buffer[] = [];
  if (stream === null) return { chunks, rest: null };
  const iterator = stream[Symbol.asyncIterator]();
  let size = 0;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return { chunks, rest: null };
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : (next.value as Buffer);
    chunks.push(chunk);
    size += chunk.length;
    if (size > limit) return { chunks, rest: iterator };
  }
}

async function* replay({ chunks, rest }: PartRead): AsyncGenerator<Buffer> {
  yield* chunks;
  if (rest === null) return;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value as Buffer;
}

function toStream(body: BackendRequest['body']): Readable | null {
  if (body === null) return null;
  if (typeof body === 'string') return Readable.from([Buffer.from(body)]);
  if (Buffer.isBuffer(body)) return Readable.from([body]);
  return body;
}
