import { Request as UndiciRequest, FormData as UndiciFormData } from 'undici';
import { describe, expect, it } from 'vitest';
import { MultipartError, multipartBoundary, readMultipart, type PartHeaders } from './multipart-stream.js';

interface ReadPart extends PartHeaders {
  body: string;
  chunks: number;
}

/** Reads `body` cut into pieces of `size` bytes (the worst case is 1: every boundary split). */
async function parts(body: Buffer, boundary: string, size = body.length): Promise<ReadPart[]> {
  async function* pieces() {
    for (let at = 0; at < body.length; at += size) yield body.subarray(at, at + size);
  }
  const out: ReadPart[] = [];
  await readMultipart(pieces(), boundary, (headers) => {
    const part: ReadPart = { ...headers, body: '', chunks: 0 };
    out.push(part);
    const bytes: Buffer[] = [];
    return {
      data: (chunk) => {
        bytes.push(Buffer.from(chunk));
        part.chunks += 1;
      },
      end: () => {
        part.body = Buffer.concat(bytes).toString('utf8');
      },
    };
  });
  return out;
}

/** A body as a real client (undici's fetch) encodes a FormData, with its boundary. */
async function encoded(form: UndiciFormData): Promise<{ body: Buffer; boundary: string }> {
  const request = new UndiciRequest('http://x.invalid/', { method: 'POST', body: form });
  const boundary = multipartBoundary(request.headers.get('content-type')!);
  return { body: Buffer.from(await request.arrayBuffer()), boundary };
}

/** A body of parts written out by hand: [headers (each line ending CRLF), content]. */
function raw(boundary: string, ...sections: Array<[string, string]>): Buffer {
  return Buffer.from(sections.map(([headers, content]) => `--${boundary}\r\n${headers}\r\n${content}\r\n`).join('') + `--${boundary}--\r\n`);
}

describe('readMultipart', () => {
  it('reads what a client encodes, the same whatever the chunking, as undici formData() does', async () => {
    const form = new UndiciFormData();
    form.append('callback_url', 'https://r.example.com/h');
    form.append('file', new Blob(['id,name\r\n1,Ada\r\n--not-a-boundary\r\n'], { type: 'text/csv' }), 'customers.csv');
    form.append('note', 'héllo "quoted"\nline');
    form.append('other', new Blob(['x']), 'other.bin');
    const { body, boundary } = await encoded(form);
    const oracle = await new UndiciRequest('http://x.invalid/', { method: 'POST', body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }).formData();
    const expected = await Promise.all(
      [...oracle.entries()].map(async ([name, value]) => (typeof value === 'string' ? { name, filename: null, body: value } : { name, filename: value.name, body: await value.text() })),
    );
    for (const size of [1, 2, 3, 7, 64, body.length]) {
      const read = await parts(body, boundary, size);
      expect(read.map(({ name, filename, body: text }) => ({ name, filename, body: text }))).toEqual(expected);
      expect(read.map((p) => p.contentType)).toEqual([null, 'text/csv', null, 'application/octet-stream']);
    }
    expect(expected[1]).toEqual({ name: 'file', filename: 'customers.csv', body: 'id,name\r\n1,Ada\r\n--not-a-boundary\r\n' });
  });

  it('hands a large part over in pieces as it arrives, never whole', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const body = raw('b0undary', ['Content-Disposition: form-data; name="file"; filename="big.csv"\r\n', big]);
    const [file] = await parts(body, 'b0undary', 16 * 1024);
    expect(file!.body.length).toBe(big.length);
    expect(file!.chunks).toBeGreaterThan(60);
  });

  it('takes filename* (RFC 5987) over filename, skips preamble, padding and epilogue', async () => {
    const body = Buffer.from(
      'preamble text\r\n--B  \r\nContent-Disposition: form-data; name="file"; filename="plain.csv"; filename*=utf-8\'\'%C3%A9t%C3%A9.csv\r\nContent-Type: text/csv\r\n\r\na\r\n--B--\r\nepilogue --B\r\n',
    );
    expect(await parts(body, 'B', 5)).toEqual([{ name: 'file', filename: 'été.csv', contentType: 'text/csv', body: 'a', chunks: 1 }]);
  });

  it.each([
    ['a body without any boundary', Buffer.from('just text'), 'no boundary found in the multipart body'],
    ['a body cut before its closing boundary', Buffer.from('--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue'), 'the multipart body ended before its closing boundary'],
    ['a part without headers', Buffer.from('--B\r\n\r\nvalue\r\n--B--'), 'a part has no Content-Disposition header'],
    ['a part without a name', raw('B', ['Content-Disposition: form-data; filename="a.csv"\r\n', 'x']), 'a part has no Content-Disposition header with a name'],
    ['a disposition that is not form-data', raw('B', ['Content-Disposition: attachment; name="a"\r\n', 'x']), 'a part\'s Content-Disposition is "attachment", not form-data'],
    ['a base64 part', raw('B', ['Content-Disposition: form-data; name="a"\r\nContent-Transfer-Encoding: base64\r\n', 'eA==']), 'Content-Transfer-Encoding base64 is not supported (RFC 7578 deprecates it): send the part\'s bytes as they are'],
    ['text after a boundary', Buffer.from('--Bxyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--B--'), 'unexpected text after a boundary'],
  ])('refuses %s, saying what is wrong', async (_what, body, message) => {
    await expect(parts(body, 'B', 3)).rejects.toThrow(new MultipartError(message));
  });

  it('finds the boundary of the Content-Type, or says it is missing or invalid', () => {
    expect(multipartBoundary('multipart/form-data; boundary=----abc')).toBe('----abc');
    expect(multipartBoundary('multipart/form-data; charset=utf-8; boundary="a b:c"')).toBe('a b:c');
    expect(() => multipartBoundary('multipart/form-data')).toThrow('the Content-Type has no boundary parameter (multipart/form-data; boundary=...)');
    expect(() => multipartBoundary(`multipart/form-data; boundary=${'x'.repeat(71)}`)).toThrow('is not a valid boundary');
  });
});
