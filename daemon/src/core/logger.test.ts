import { describe, expect, it } from 'vitest';
import { Logger, redact } from './logger.js';

function capture(format: 'common' | 'json', level: 'info' | 'debug' = 'info') {
  const lines: string[] = [];
  const logger = new Logger({ format, level, sink: { write: (l) => lines.push(l) }, base: { component: 'store' } });
  return { logger, lines };
}

describe('Logger', () => {
  it('writes one JSON object per line in json format', () => {
    const { logger, lines } = capture('json');
    logger.info('opened', { file: 'data/portico.db' });
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({ level: 'info', type: 'gateway_daemon', message: 'opened', component: 'store', file: 'data/portico.db' });
    expect(Date.parse(entry.timestamp)).not.toBeNaN();
  });

  it('writes a human line in common format', () => {
    const { logger, lines } = capture('common');
    logger.warn('slow start', { ms: 1200 });
    expect(lines[0]).toMatch(/^\S+ WARN  \[store\] slow start ms=1200$/);
  });

  it('never writes secret values, however deep', () => {
    const { logger, lines } = capture('json');
    logger.info('x', { token: 'abc', nested: { client_secret: 'def', Authorization: 'Bearer ghi' }, apiKey: 'k' });
    expect(lines[0]).not.toMatch(/abc|def|ghi|"k"/);
    expect(JSON.parse(lines[0]!).nested.client_secret).toBe('***');
  });

  it('drops entries below the level', () => {
    const { logger, lines } = capture('common', 'info');
    logger.debug('hidden');
    expect(lines).toEqual([]);
  });

  it('writes what the spread of base and fields would, in its order, an override keeping its place', () => {
    // The line as `{ ...base, ...fields }` through redact() gives it (the logger builds it without spreads).
    const expected = (format: 'common' | 'json', base: Record<string, unknown>, fields: Record<string, unknown>, message: string) => {
      const all = redact({ ...base, ...fields });
      if (format === 'json') return { level: 'warn', type: 'gateway_daemon', message, ...all };
      const { component, ...rest } = all;
      const tag = component ? ` [${String(component)}]` : '';
      const extra = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? (/[\s"=]/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v)}`).join(' ');
      return `WARN ${tag} ${message}${extra ? ` ${extra}` : ''}`;
    };
    const values = ['a b', 'plain', 7, null, undefined, true, new Error('boom'), { secret: 's', n: 1 }, ['x'], 'q"uote'];
    const names = ['component', 'id', 'token', 'job_id', 'message', 'level', '2', 'status', 'target'];
    let seed = 7;
    const pick = <T>(list: readonly T[]): T => list[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % list.length]!;
    const draw = () => Object.fromEntries(Array.from({ length: pick([0, 1, 2, 3, 4]) }, () => [pick(names), pick(values)]));
    for (let i = 0; i < 400; i++) {
      const base = draw();
      const fields = draw();
      const format = pick(['common', 'json'] as const);
      const lines: string[] = [];
      const notices: unknown[] = [];
      const logger = new Logger({ format, sink: { write: (l) => lines.push(l) }, base, onNotice: (_level, _message, all) => notices.push(all) });
      logger.warn('m x', fields);
      expect(notices).toEqual([redact({ ...base, ...fields })]);
      if (format === 'json') {
        const { timestamp, ...entry } = JSON.parse(lines[0]!) as Record<string, unknown>;
        expect(typeof timestamp).toBe('string');
        expect(entry).toEqual(JSON.parse(JSON.stringify(expected(format, base, fields, 'm x'))));
        expect(Object.keys(entry)).toEqual(Object.keys(JSON.parse(JSON.stringify(expected(format, base, fields, 'm x')))));
      } else {
        expect(lines[0]!.replace(/^\S+ WARN /, 'WARN ')).toBe(expected(format, base, fields, 'm x'));
      }
    }
  });
});
