import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { tolerateClosedOutput } from './closed-output.js';

const failing = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`write ${code}`), { code });
const output = (): Writable => new Writable({ write: (_chunk, _encoding, done) => done() });

describe('an output stream whose reader went away', () => {
  it('no longer ends the process on EPIPE (Node throws an error event nobody listens to)', () => {
    const unguarded = output();
    expect(() => unguarded.emit('error', failing('EPIPE'))).toThrow('write EPIPE');
    const guarded = output();
    tolerateClosedOutput([guarded]);
    expect(() => guarded.emit('error', failing('EPIPE'))).not.toThrow();
    expect(() => guarded.emit('error', failing('ERR_STREAM_DESTROYED'))).not.toThrow();
  });

  it('keeps any other error as fatal as before, and guards a stream once', () => {
    const stream = output();
    tolerateClosedOutput([stream]);
    tolerateClosedOutput([stream]);
    expect(stream.listenerCount('error')).toBe(1);
    expect(() => stream.emit('error', failing('EIO'))).toThrow('write EIO');
  });
});
