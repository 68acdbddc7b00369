import { Writable } from 'node:stream';

/** A writable that keeps what was written, standing in for stdout/stderr. */
export class Capture extends Writable {
  text = '';
  isTTY = false;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
  asStream(): NodeJS.WriteStream {
    return this as unknown as NodeJS.WriteStream;
  }
}

/** A stdin that is not a terminal, as when `portico tui` is piped. */
export function pipedStdin(): NodeJS.ReadStream {
  return { isTTY: false } as unknown as NodeJS.ReadStream;
}
