import { describe, expect, it } from 'vitest';
import { Logger } from './logger.js';

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
});
