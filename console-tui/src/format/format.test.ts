import { describe, expect, it } from 'vitest';
import { controlEndpoints } from '../control/endpoints.js';
import { formatClockOrDate, formatDuration } from './duration.js';
import { fit, truncate, wrapWords } from './fit.js';

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

  it('writes a time of today as HH:MM:SS and one of another day with its date', () => {
    const now = new Date(2026, 4, 7, 9, 30).getTime();
    expect(formatClockOrDate(new Date(2026, 4, 7, 0, 0, 5).toISOString(), now)).toBe('00:00:05');
    expect(formatClockOrDate(new Date(2026, 4, 6, 23, 59, 59).toISOString(), now)).toBe('2026-05-06 23:59:59');
    expect(formatClockOrDate('not a time', now)).toBe('not a time');
  });

  it('writes durations compactly', () => {
    expect([42, 303, 7_620, 273_600].map(formatDuration)).toEqual(['42s', '5m 03s', '2h 07m', '3d 04h']);
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
