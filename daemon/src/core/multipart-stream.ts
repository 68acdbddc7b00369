/**
 * multipart/form-data (RFC 7578) read as it arrives: each part's bytes go to a sink as they come,
 * so a large file part is never held whole. Header parsing follows the WHATWG form-data parser
 * (what undici's `formData()` does): `name`, `filename` (or `filename*=utf-8''...`), Content-Type.
 */
import { PorticoError } from './errors.js';

/** The body is not a multipart/form-data body this reader understands; the message says what. */
export class MultipartError extends PorticoError {
  override name = 'MultipartError';
  constructor(message: string) {
    super('bad_multipart', message, { category: 'invalid' });
  }
}

export interface PartHeaders {
  name: string;
  /** Present (maybe empty) for a file part, null for a text field. */
  filename: string | null;
  contentType: string | null;
}

/** Where one part's bytes go; `data` may be async (the reader waits, so the socket is paused). */
export interface PartSink {
  data(chunk: Buffer): void | Promise<void>;
  end(): void | Promise<void>;
}

const MAX_HEADER_BYTES = 16 * 1024;
const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');
const BOUNDARY_CHARS = /^[0-9A-Za-z'()+_,\-./:=? ]{1,70}$/;

/** The boundary of a multipart/form-data Content-Type, else a MultipartError. */
export function multipartBoundary(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw new MultipartError('the Content-Type has no boundary parameter (multipart/form-data; boundary=...)');
  if (!BOUNDARY_CHARS.test(boundary) || boundary.endsWith(' ')) throw new MultipartError('the boundary parameter of the Content-Type is not a valid boundary (RFC 2046: 1 to 70 characters)');
  return boundary;
}

type State = 'preamble' | 'delimiter' | 'headers' | 'body' | 'epilogue';

/**
 * Reads `source` as multipart/form-data with `boundary`, calling `onPart` at each part's headers
 * and its sink with the part's bytes. Resolves after the closing boundary; throws a
 * MultipartError for a malformed body (or one that ends early), and whatever a sink throws.
 */
export async function readMultipart(source: AsyncIterable<Buffer>, boundary: string, onPart: (part: PartHeaders) => PartSink | Promise<PartSink>): Promise<void> {
  // Every delimiter is CRLF + "--" + boundary; a virtual CRLF in front makes the first one alike.
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const keep = delimiter.length - 1;
  let pending: Buffer = CRLF;
  let state: State = 'preamble';
  let sink: PartSink | null = null;
  for await (const chunk of source) {
    if (state === 'epilogue') continue;
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (state === 'preamble' || state === 'body') {
        const at = pending.indexOf(delimiter);
        if (at === -1) {
          // Everything but a tail that could be the start of a delimiter is the part's.
          const safe = pending.length - keep;
          if (safe > 0) {
            if (sink) await sink.data(pending.subarray(0, safe));
            pending = pending.subarray(safe);
          }
          break;
        }
        if (sink) {
          if (at > 0) await sink.data(pending.subarray(0, at));
          await sink.end();
          sink = null;
        }
        pending = pending.subarray(at + delimiter.length);
        state = 'delimiter';
      } else if (state === 'delimiter') {
        const lineEnd = pending.indexOf(CRLF);
        if (pending.length >= 2 && pending[0] === 0x2d && pending[1] === 0x2d) {
          state = 'epilogue';
          break;
        }
        if (lineEnd === -1) {
          if (pending.length > 256) throw new MultipartError('a boundary line does not end with CRLF');
          break;
        }
        // Transport padding (spaces, tabs) may follow a delimiter.
        if (!/^[ \t]*$/.test(pending.subarray(0, lineEnd).toString('latin1'))) throw new MultipartError('unexpected text after a boundary');
        pending = pending.subarray(lineEnd + CRLF.length);
        state = 'headers';
      } else if (state === 'headers') {
        if (pending.length >= 2 && pending[0] === 0x0d && pending[1] === 0x0a) throw new MultipartError('a part has no Content-Disposition header');
        const end = pending.indexOf(HEADERS_END);
        if (end === -1) {
          if (pending.length > MAX_HEADER_BYTES) throw new MultipartError(`a part's headers are longer than ${MAX_HEADER_BYTES} bytes`);
          break;
        }
        const headers = parsePartHeaders(pending.subarray(0, end).toString('utf8'));
        pending = pending.subarray(end + HEADERS_END.length);
        sink = await onPart(headers);
        state = 'body';
      } else {
        break;
      }
    }
    // Own the tail: the chunk it points into may be reused by the source.
    if (pending.length > 0 && pending.length <= keep) pending = Buffer.from(pending);
  }
  if (state !== 'epilogue') throw new MultipartError(state === 'preamble' ? 'no boundary found in the multipart body' : 'the multipart body ended before its closing boundary');
}

function parsePartHeaders(block: string): PartHeaders {
  let name: string | null = null;
  let filename: string | null = null;
  let contentType: string | null = null;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError(`a part header is not "Name: value": ${JSON.stringify(line.slice(0, 80))}`);
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (header === 'content-disposition') ({ name, filename } = parseDisposition(value));
    else if (header === 'content-type') contentType = value;
    else if (header === 'content-transfer-encoding' && !/^(binary|8bit|7bit)$/i.test(value)) {
      throw new MultipartError(`Content-Transfer-Encoding ${value} is not supported (RFC 7578 deprecates it): send the part's bytes as they are`);
    }
  }
  if (name === null) throw new MultipartError('a part has no Content-Disposition header with a name');
  return { name, filename, contentType };
}

function parseDisposition(value: string): { name: string | null; filename: string | null } {
  const type = value.split(';', 1)[0]!;
  if (type.trim().toLowerCase() !== 'form-data') throw new MultipartError(`a part's Content-Disposition is ${JSON.stringify(type.trim())}, not form-data`);
  let name: string | null = null;
  let filename: string | null = null;
  let extended = false;
  const params = /;\s*([^\s=*;]+)(\*?)\s*=\s*(?:"([^"\r\n]*)"|([^;\s]*))/g;
  for (const match of value.slice(type.length).matchAll(params)) {
    const key = match[1]!.toLowerCase();
    const raw = match[3] ?? match[4] ?? '';
    if (match[2] === '*') {
      if (key !== 'filename' && key !== 'name') continue;
      if (!/^utf-8''/i.test(raw)) throw new MultipartError(`${key}* in a Content-Disposition must be utf-8''...`);
      const decoded = decodeExtended(raw.slice(7));
      if (key === 'filename') {
        filename = decoded;
        extended = true;
      } else name = decoded;
      continue;
    }
    const plain = raw.replace(/%0A/gi, '\n').replace(/%0D/gi, '\r').replace(/%22/g, '"');
    if (key === 'name') name = plain;
    else if (key === 'filename' && !extended) filename = plain;
  }
  return { name, filename };
}

function decodeExtended(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new MultipartError(`a filename* in a Content-Disposition is not valid percent-encoded UTF-8`);
  }
}
