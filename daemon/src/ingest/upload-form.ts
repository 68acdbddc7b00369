import type { IncomingMessage } from 'node:http';
import { ApiError, fieldError } from './api-error.js';
import { bodyChunks } from './http-io.js';
import { MultipartError, multipartBoundary, readMultipart, type PartHeaders, type PartSink } from '../core/multipart-stream.js';
import type { StagedUpload, UploadFiles } from './upload-files.js';

/** What the form may hold besides the file: its text fields (kept in memory) and other parts. */
export const FORM_OVERHEAD_BYTES = 1024 * 1024;
/** Parts in one form: the file and the callback fields need four. */
export const MAX_FORM_PARTS = 100;

export interface UploadedFile {
  /** As sent (may be empty). */
  filename: string;
  /** The part's Content-Type as a File's `type` would be: lower case, `text/plain` when absent, null when not ASCII. */
  contentType: string | null;
  upload: StagedUpload;
}

/** A received files:async form: its file on disk (synced), its text fields in memory. */
export interface UploadForm {
  /** The first entry named `file`, when it is a file part. */
  file: UploadedFile | null;
  /** The first value of a text field; a file part under that name is a 400. */
  text(name: string): string | undefined;
  /** Removes the file unless its job committed; call once the request is answered. */
  discard(): Promise<void>;
}

type Entry = { kind: 'text'; value: string } | { kind: 'file' };

const DISCARD: PartSink = { data: () => {}, end: () => {} };

/**
 * Streams a multipart/form-data upload: the `file` part to a temporary file of `uploads` (413 as
 * soon as it passes `maxFileBytes`), text fields to memory (at most FORM_OVERHEAD_BYTES with the
 * rest of the form), other file parts nowhere. Entries are read as FormData.get reads them: the
 * first of a name wins. Any failure removes the temporary file before it is thrown.
 */
export async function receiveUploadForm(req: IncomingMessage, uploads: UploadFiles, maxFileBytes: number): Promise<UploadForm> {
  let boundary: string;
  try {
    boundary = multipartBoundary(String(req.headers['content-type']));
  } catch (error) {
    throw malformed(error as MultipartError);
  }
  const entries = new Map<string, Entry>();
  const received: { file: UploadedFile | null } = { file: null };
  let textBytes = 0;
  let parts = 0;

  const textSink = (name: string): PartSink => {
    const chunks: Buffer[] = [];
    return {
      data(chunk) {
        textBytes += chunk.length;
        if (textBytes > FORM_OVERHEAD_BYTES) throw new ApiError('payload_too_large', `the form's text fields exceed ${FORM_OVERHEAD_BYTES} bytes; send the callback settings and the file alone`);
        chunks.push(chunk);
      },
      end() {
        entries.set(name, { kind: 'text', value: Buffer.concat(chunks).toString('utf8') });
      },
    };
  };

  const fileSink = (upload: StagedUpload): PartSink => ({
    async data(chunk) {
      if (upload.size + chunk.length > maxFileBytes) throw new ApiError('payload_too_large', `file: is larger than the limit of ${maxFileBytes} bytes (SERVICE_UPLOAD_MAX_BYTES)`, [{ field: 'file', message: `is larger than ${maxFileBytes} bytes` }]);
      await upload.write(chunk);
    },
    end: () => {},
  });

  const onPart = async (part: PartHeaders): Promise<PartSink> => {
    parts += 1;
    if (parts > MAX_FORM_PARTS) throw new ApiError('validation_failed', `the form has more than ${MAX_FORM_PARTS} parts; send the file and the callback fields only`, [{ field: 'body', message: `more than ${MAX_FORM_PARTS} parts` }]);
    if (entries.has(part.name)) return DISCARD;
    if (part.filename === null) {
      // Taken now: the first part of a name wins, whatever comes later.
      entries.set(part.name, { kind: 'text', value: '' });
      return textSink(part.name);
    }
    entries.set(part.name, { kind: 'file' });
    if (part.name !== 'file') return DISCARD;
    received.file = { filename: part.filename, contentType: fileType(part.contentType), upload: await uploads.stage() };
    return fileSink(received.file.upload);
  };

  try {
    await readMultipart(bodyChunks(req, maxFileBytes + FORM_OVERHEAD_BYTES), boundary, onPart);
    await received.file?.upload.finish();
  } catch (error) {
    await received.file?.upload.discard();
    if (error instanceof MultipartError) throw malformed(error);
    if (!(error instanceof ApiError) && req.destroyed) throw new ApiError('validation_failed', 'the upload was cut off: the client closed the connection before the end of the body');
    throw error;
  }
  const { file } = received;
  return {
    file,
    text(name) {
      const entry = entries.get(name);
      if (entry?.kind === 'file') throw fieldError(name, 'must be a text field, not a file');
      return entry?.value;
    },
    discard: async () => file?.upload.discard(),
  };
}

function malformed(error: MultipartError): ApiError {
  return new ApiError('validation_failed', `the multipart body could not be parsed: ${error.message}`, [{ field: 'body', message: 'malformed multipart' }]);
}

/** A File's `type` (File API): printable ASCII lowercased, else empty; the part's default is text/plain. */
function fileType(contentType: string | null): string | null {
  const type = contentType ?? 'text/plain';
  return /^[\x20-\x7e]+$/.test(type) ? type.toLowerCase() : null;
}
