import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backendLogRecord, type BackendLogInput } from '../backend/backend-log.js';
import { GatewayError } from '../errors/error-types.js';
import { accessRecord, type AccessRecordInput } from './access-record.js';
import { accessLineOf, backendLineOf, formatCommonLine } from './common-line.js';
import { createGatewayLogSink } from './log-sink.js';

const word = fc.oneof(fc.constant(''), fc.string({ maxLength: 12 }), fc.constantFrom('default', 'endpoint', 'error_handler:backend', 'a b', 'x"y', 'k=v', '/api/**'));
const url = fc.constantFrom('http://127.0.0.1:8080/a?b=1', 'https://h.example/x?key=s3cret&page=2', 'http://u:p@h/y', 'http://[::1]:9/z%20w');

const accessInput: fc.Arbitrary<AccessRecordInput> = fc.record({
  startedAt: fc.integer({ min: 0, max: 4_000_000_000_000 }),
  durationMs: fc.double({ min: 0, max: 100_000, noNaN: true }),
  requestId: word,
  method: fc.constantFrom('GET', 'POST', ''),
  url: url.map((u) => new URL(u)),
  status: fc.integer({ min: 100, max: 599 }),
  server: fc.option(word, { nil: null }),
  api: fc.option(word, { nil: null }),
  endpoint: fc.option(word, { nil: null }),
  handler: fc.option(word, { nil: null }),
  clientIp: fc.constantFrom('', '127.0.0.1', '::ffff:10.0.0.1'),
  authUser: fc.option(word, { nil: null }),
  requestHeaders: fc.constant({ authorization: 'Bearer s3cret', accept: '*/*' }),
  requestBytes: fc.nat(),
  tls: fc.boolean(),
  protocol: fc.constant('HTTP/1.1'),
  responseHeaders: fc.constant({ 'content-type': 'text/plain' }),
  responseBytes: fc.nat(),
  errorType: fc.option(word, { nil: null }),
  message: fc.option(word, { nil: null }),
  custom: fc.constant({}),
});

const backendInput: fc.Arbitrary<BackendLogInput> = fc.record({
  startedAt: fc.integer({ min: 0, max: 4_000_000_000_000 }),
  requestId: word,
  backend: word,
  handler: word,
  method: fc.constantFrom('GET', 'PUT'),
  url: url.map((u) => new URL(u)),
  requestHeaders: fc.constant({ cookie: 'sid=s3cret' }),
  requestBytes: fc.nat(),
  status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
  responseHeaders: fc.constant(null),
  responseBytes: fc.nat(),
  protocol: fc.constantFrom(null, 'http/1.1'),
  timings: fc.record({
    dns: fc.constant(null),
    tcp: fc.constant(null),
    tls: fc.constant(null),
    ttfb: fc.option(fc.double({ min: 0, max: 1000, noNaN: true }), { nil: null }),
    total: fc.option(fc.double({ min: 0, max: 1000, noNaN: true }), { nil: null }),
  }),
  error: fc.oneof(fc.constant(null), word.map((d) => new GatewayError('backend_timeout', d)), word.map((m) => new Error(m))),
  custom: fc.constant(null),
});

describe('log lines formatted from their parts', () => {
  it('are the lines of the records built from the same parts', () => {
    fc.assert(
      fc.property(accessInput, (input) => {
        expect(accessLineOf(input)).toBe(formatCommonLine(accessRecord(input)));
      }),
    );
    fc.assert(
      fc.property(backendInput, (input) => {
        expect(backendLineOf(input)).toBe(formatCommonLine(backendLogRecord(input)));
      }),
    );
  });

  it('are the same from the pieces kept for repeated names, past the tables\' bounds too', () => {
    // Names, methods and statuses repeat: the second pass formats from what the first kept.
    for (let pass = 0; pass < 2; pass++) {
      fc.assert(fc.property(accessInput, (input) => {
        expect(accessLineOf(input)).toBe(formatCommonLine(accessRecord(input)));
      }), { seed: 15, numRuns: 300 });
      fc.assert(fc.property(backendInput, (input) => {
        expect(backendLineOf(input)).toBe(formatCommonLine(backendLogRecord(input)));
      }), { seed: 15, numRuns: 300 });
    }
    // More routes and backends than the tables keep (1,024 each), then the first ones again.
    const access = (i: number): AccessRecordInput => ({ startedAt: 1_700_000_000_000 + i, durationMs: i / 7, requestId: `r${i}`, method: 'GET', url: new URL(`http://h/p${i}`), status: 200 + (i % 3), server: `s${i % 5}`, api: i % 2 ? null : `a${i}`, endpoint: `/e${i}`, handler: 'endpoint', clientIp: '127.0.0.1', authUser: i % 4 ? null : `u${i}`, requestHeaders: {}, requestBytes: 0, tls: false, protocol: 'HTTP/1.1', responseHeaders: {}, responseBytes: i, errorType: null, message: null, custom: {} });
    const backend = (i: number): BackendLogInput => ({ startedAt: 1_700_000_000_000 + i, requestId: `r${i}`, backend: `b${i}`, handler: `h${i}`, method: i % 2 ? 'GET' : 'POST', url: new URL(`http://b/${i}`), requestHeaders: {}, requestBytes: 0, status: i % 9 ? 200 : null, responseHeaders: null, responseBytes: 0, protocol: 'http/1.1', timings: { dns: null, tcp: null, tls: null, ttfb: i / 3, total: i / 2 }, error: null, custom: null });
    for (const i of [...Array(2_500).keys(), 0, 1, 2, 2_400]) {
      expect(accessLineOf(access(i))).toBe(formatCommonLine(accessRecord(access(i))));
      expect(backendLineOf(backend(i))).toBe(formatCommonLine(backendLogRecord(backend(i))));
    }
  });

  it('a sink writes parts as the records would be written, in both formats and at every level', () => {
    fc.assert(
      fc.property(accessInput, backendInput, fc.constantFrom('common', 'json'), fc.constantFrom('error', 'info'), (access, backend, format, level) => {
        const fromParts: string[] = [];
        const fromRecords: string[] = [];
        const parts = createGatewayLogSink({ format, level, write: (l) => fromParts.push(l) });
        const records = createGatewayLogSink({ format, level, write: (l) => fromRecords.push(l) });
        const custom = { ...access, custom: { team: 'core', headers: { cookie: 's3cret', accept: 'x' } } };
        for (const entry of [access, custom]) {
          parts.writeAccess(entry);
          records.write(accessRecord(entry));
        }
        parts.writeBackend(backend);
        records.write(backendLogRecord(backend));
        expect(fromParts).toEqual(fromRecords);
        expect(fromParts.join('\n')).not.toContain('s3cret');
      }),
    );
  });

  it('show durations with one decimal, as toFixed(1) shows them, and quote names that need it', () => {
    const line = (durationMs: number, server: string | null = 'bench') =>
      accessLineOf({ startedAt: 0, durationMs, requestId: 'r1', method: 'GET', url: new URL('http://h/p'), status: 200, server, api: null, endpoint: '/p', handler: 'endpoint', clientIp: '127.0.0.1', authUser: null, requestHeaders: {}, requestBytes: 0, tls: false, protocol: 'HTTP/1.1', responseHeaders: {}, responseBytes: 2, errorType: null, message: null, custom: {} });
    const shown = (durationMs: number) => / 2 (\S+) id=/.exec(line(durationMs))?.[1];
    expect([0, 0.04, 0.06, 12.34, 99.96, 123456.789].map(shown)).toEqual(['0.0ms', '0.0ms', '0.1ms', '12.3ms', '100.0ms', '123456.8ms']);
    fc.assert(fc.property(fc.double({ min: 0, max: 1e7, noNaN: true }), (ms) => {
      const rounded = Math.round(ms * 1000) / 1000;
      // A tie (x.x5 exactly in decimal) may round up where toFixed, reading the binary value, rounds down.
      fc.pre(Math.abs(rounded * 10 - Math.trunc(rounded * 10) - 0.5) > 1e-6);
      expect(shown(ms)).toBe(`${rounded.toFixed(1)}ms`);
    }));
    expect(line(1, 'my server')).toContain(' server="my server" ');
    // Again, now from the names already quoted.
    expect(line(1, 'my server')).toContain(' server="my server" ');
  });
});
