/**
 * Request ids. `common` is the peer's shape (an xid): 12 bytes — 4 of Unix seconds, 5 random
 * per process, 3 of a counter — written as 20 characters of lower-case base32hex
 * (`0-9a-v`), so ids sort by time and never repeat within a process. `uuid4` is RFC 4122.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Settings } from '../config/model.js';

const ALPHABET = '0123456789abcdefghijklmnopqrstuv';
const PROCESS_BYTES = randomBytes(5);
let counter = randomBytes(3).readUIntBE(0, 3);

export function commonRequestId(now: number = Date.now()): string {
  const bytes = Buffer.alloc(12);
  bytes.writeUInt32BE(Math.floor(now / 1000) >>> 0, 0);
  PROCESS_BYTES.copy(bytes, 4);
  counter = (counter + 1) & 0xffffff;
  bytes.writeUIntBE(counter, 9, 3);
  return base32hex(bytes);
}

function base32hex(bytes: Buffer): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** What a client may send as its request id, as the peer accepts it. */
const ACCEPTABLE = /^[a-zA-Z0-9@=/+-]{12,64}$/;

export function isAcceptableRequestId(value: string): boolean {
  return ACCEPTABLE.test(value);
}

type Headers = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface RequestIdChoice {
  readonly id: string;
  /** The client sent an id in `request_id_accept_from_header` that is not acceptable: the request is refused with 400. */
  readonly refused: string | null;
}

/** The request's id: the client's (from `request_id_accept_from_header`) when present, else a new one; a bad one is refused, not replaced. */
export function requestIdFor(settings: Pick<Settings, 'requestIdAcceptFromHeader' | 'requestIdFormat'>, headers: Headers): RequestIdChoice {
  const from = settings.requestIdAcceptFromHeader.toLowerCase();
  if (from !== '') {
    const raw = headers[from];
    const value = (Array.isArray(raw) ? raw[0] : raw) as string | undefined;
    if (value !== undefined) {
      if (isAcceptableRequestId(value)) return { id: value, refused: null };
      return { id: newRequestId(settings), refused: `the ${settings.requestIdAcceptFromHeader} header is not a valid request id: it must be 12 to 64 characters of a-z, A-Z, 0-9, @, =, /, + and -` };
    }
  }
  return { id: newRequestId(settings), refused: null };
}

function newRequestId(settings: Pick<Settings, 'requestIdFormat'>): string {
  return settings.requestIdFormat === 'uuid4' ? randomUUID() : commonRequestId();
}
