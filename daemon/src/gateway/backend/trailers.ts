/**
 * A backend's response trailers, forwarded to the client after the body it streamed (as a
 * reverse proxy does: the `Trailer` announcement is hop-by-hop like the rest of the head's
 * connection headers, so the gateway announces again what the backend announced). Only a body
 * that streams carries them; one read whole (a small body of known length, or one an expression
 * reads) has none, as it was not chunked or is sent with a length.
 */
import { util } from 'undici';
import type { Readable } from 'node:stream';

const { headerNameToString } = util;

/** Set on a streamed body: the backend's announcement, then (at its end) the trailers it sent. */
export interface ForwardedTrailers {
  /** The backend's `Trailer` header, joined; null when it announced none. */
  readonly announced: string | null;
  /** Filled when the backend's body ended; null until then or when it sent none. */
  values: Array<[string, string]> | null;
}

const TRAILERS: unique symbol = Symbol('portico.trailers');

type Carrier = Readable & { [TRAILERS]?: ForwardedTrailers };

/** The trailers a body will end with, or undefined when it carries none. */
export function trailersOf(body: Readable): ForwardedTrailers | undefined {
  return (body as Carrier)[TRAILERS];
}

export function carryTrailers(body: Readable, trailers: ForwardedTrailers): void {
  (body as Carrier)[TRAILERS] = trailers;
}

/**
 * Fields that must not come as trailers (RFC 9110 §6.5.1: framing, routing, the connection's
 * own, content coding and type) are not forwarded even when a backend sends them.
 */
const NOT_FORWARDED: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'content-encoding',
  'content-type',
  'content-range',
  'host',
  'authorization',
  'proxy-authenticate',
  'proxy-authorization',
  'set-cookie',
  'www-authenticate',
]);

/** Valid field values (RFC 9110 §5.5): Node's addTrailers refuses others, so they are left out. */
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/** The backend's announcement (`Trailer` lines joined), from undici's raw head; null when there is none. */
export function announcedTrailers(raw: readonly Buffer[]): string | null {
  let announced: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== 7 || headerNameToString(name) !== 'trailer') continue;
    const value = raw[i + 1]!.toString('latin1').trim();
    if (value !== '') announced = announced === null ? value : `${announced}, ${value}`;
  }
  return announced;
}

/** Trailers as undici hands them over: a raw list (name, value...) over HTTP/1.1, an object over HTTP/2. */
export type RawTrailers = readonly (Buffer | string)[] | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The trailers to forward: lower-case names, forbidden, pseudo and malformed ones dropped; null when none is left. */
export function forwardableTrailers(raw: RawTrailers): Array<[string, string]> | null {
  const out: Array<[string, string]> = [];
  const add = (name: string, value: string): void => {
    if (NOT_FORWARDED.has(name) || name.startsWith('proxy-') || !NAME.test(name) || !VALUE.test(value)) return;
    out.push([name, value]);
  };
  if (Array.isArray(raw)) {
    const list = raw as readonly (Buffer | string)[];
    for (let i = 0; i + 1 < list.length; i += 2) {
      const name = list[i]!;
      const value = list[i + 1]!;
      add(typeof name === 'string' ? name.toLowerCase() : headerNameToString(name), typeof value === 'string' ? value : value.toString('latin1'));
    }
  } else {
    for (const [name, value] of Object.entries(raw as Readonly<Record<string, string | readonly string[] | undefined>>)) {
      if (value === undefined) continue;
      for (const one of typeof value === 'string' ? [value] : value) add(name.toLowerCase(), String(one));
    }
  }
  return out.length === 0 ? null : out;
}
