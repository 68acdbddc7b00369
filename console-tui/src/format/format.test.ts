import { describe, expect, it } from 'vitest';
import { controlEndpoints } from '../control/endpoints.js';
import { fit, truncate, wrapLines, wrapText, wrapWords } from './fit.js';

describe('text fitting', () => {
  it('cuts with … and pads to the exact width', () => {
    expect(truncate('listening on 0.0.0.0:8080', 10)).toBe('listening…');
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('anything', 0)).toBe('');
    expect(fit('● running', 12)).toBe('● running   ');
    expect(truncate('two\nlines', 20)).toBe('two lines');
  });

  it('wraps at spaces to the width, cutting only a word longer than a line', () => {
    expect(wrapWords('switch view: type its name and Enter (Tab completes)', 20)).toEqual(['switch view: type', 'its name and Enter', '(Tab completes)']);
    expect(wrapWords('short', 20)).toEqual(['short']);
    expect(wrapWords('', 20)).toEqual(['']);
    expect(wrapWords('a https://example.com/very/long/path b', 10)).toEqual(['a', 'https://e…', 'b']);
  });
});

describe('control endpoints', () => {
  it('derives the HTTP and WebSocket tRPC URLs from what the operator typed', () => {
    expect(controlEndpoints('http://127.0.0.1:9901')).toEqual({ display: 'http://127.0.0.1:9901', httpUrl: 'http://127.0.0.1:9901/trpc', wsUrl: 'ws://127.0.0.1:9901/trpc' });
    expect(controlEndpoints('127.0.0.1:9901/trpc/').wsUrl).toBe('ws://127.0.0.1:9901/trpc');
    expect(controlEndpoints('https://ops.example/portico').wsUrl).toBe('wss://ops.example/portico/trpc');
    expect(() => controlEndpoints('ftp://x')).toThrow(/must be http/);
  });
});

describe('wrapText', () => {
  it('wraps every word to the width, keeping the spacing between words and splitting a word longer than a line', () => {
    expect(wrapText('Google  #1 at the campus', 12)).toEqual(['Google  #1', 'at the', 'campus']);
    expect(wrapText('see https://example.com/a/long/path now', 10)).toEqual(['see', 'https://ex', 'ample.com/', 'a/long/pat', 'h now']);
    expect(wrapText('one\n\ntwo', 10)).toEqual(['one', '', 'two']);
    expect(wrapText('', 10)).toEqual(['']);
  });
});

describe('wrapLines', () => {
  const id = '0197a3c2-5d4e-7f60-8a1b-2c3d4e5f6a7b';

  it('breaks before an id rather than inside it when the whole text fits that way', () => {
    expect(wrapLines(`job ${id} succeeded`, 38, 3)).toEqual(['job', ` ${id}`, ' succeeded']);
  });

  it('fills the lines and splits the id when keeping it whole would push the end of the text out', () => {
    const lines = wrapLines(`job ${id} succeeded`, 38, 2);
    expect(lines).toEqual([`job ${id.slice(0, 34)}`, ` ${id.slice(34)} succeeded`]);
  });

  it('still cuts a word longer than a line, and marks text cut at the last line', () => {
    expect(wrapLines(`x ${'y'.repeat(50)}`, 20, 3)).toEqual([`x ${'y'.repeat(18)}`, ` ${'y'.repeat(19)}`, ` ${'y'.repeat(13)}`]);
    expect(wrapLines('callback delivered to the receiver at last', 20, 2)).toEqual(['callback delivered', ' to the receiver at…']);
  });
});

