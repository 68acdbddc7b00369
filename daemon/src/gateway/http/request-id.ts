/**
 * Request ids. `common` is the peer's shape (an xid): 12 bytes — 4 of Unix seconds, 5 random
 * per process, 3 of a counter — written as 20 characters of lower-case base32hex
 * (`0-9a-v`), so ids sort by time and never repeat within a process; the characters of the
 * time and process bytes are made once a second. `uuid4` is RFC 4122.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Settings } from '../config/model.js';
import { headerKey } from './header-key.js';

const ALPHABET = '0123456789abcdefghijklmnopqrstuv';
const PROCESS_BYTES = randomBytes(5);
let counter = randomBytes(3).readUIntBE(0, 3);

/** The first 14 characters (70 bits: the 4 time bytes and 38 bits of the process bytes) for one second, kept. */
let prefixSecond = -1;
let prefix = '';

export function commonRequestId(now: number = Date.now()): string {
  const second = Math.floor(now / 1000) >>> 0;
  if (second !== prefixSecond) {
    const bytes = Buffer.alloc(9);
    bytes.writeUInt32BE(second, 0);
    PROCESS_BYTES.copy(bytes, 4);
    prefix = base32hex(bytes).slice(0, 14);
    prefixSecond = second;
  }
  counter = (counter + 1) & 0xffffff;
  // The last 26 bits: 2 of the last process byte, the 24 of the counter, padded to 30.
  const tail = (((PROCESS_BYTES[4] as number) & 3) << 24) | counter;
  return prefix + ALPHABET[(tail >>> 21) & 31] + ALPHABET[(tail >>> 16) & 31] + ALPHABET[(tail >>> 11) & 31] + ALPHABET[(tail >>> 6) & 31] + ALPHABET[(tail >>> 1) & 31] + ALPHABET[(tail << 4) & 31];
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
  const from = headerKey(settings.requestIdAcceptFromHeader);
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
