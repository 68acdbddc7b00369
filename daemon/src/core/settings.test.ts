import { describe, expect, it } from 'vitest';
import { parseListenAddress, readSettings } from './settings.js';

describe('readSettings', () => {
  it('uses the documented defaults', () => {
    const s = readSettings({});
    expect(s.control).toEqual({ host: '127.0.0.1', port: 9901 });
    expect(s.dataDir).toMatch(/\/data$/);
    expect(s.shutdownTimeoutMs).toBe(5000);
    expect(s.shutdownDelayMs).toBe(0);
    expect(s.databaseUrl).toBeUndefined();
    expect(s.logFormat).toBe('common');
  });

  it('lets a flag win over the environment', () => {
    expect(readSettings({ PORTICO_DATA_DIR: '/tmp/a' }, { dataDir: '/tmp/b' }).dataDir).toBe('/tmp/b');
  });

  it('names every bad variable at once', () => {
    expect(() => readSettings({ PORTICO_LOG_FORMAT: 'xml', PORTICO_LOG_LEVEL: 'loud' })).toThrow(/PORTICO_LOG_FORMAT[\s\S]*PORTICO_LOG_LEVEL/);
  });
});

describe('parseListenAddress', () => {
  it.each([
    ['127.0.0.1:9901', { host: '127.0.0.1', port: 9901 }],
    ['[::1]:18000', { host: '::1', port: 18000 }],
    [':8080', { host: '0.0.0.0', port: 8080 }],
    ['localhost:0', { host: 'localhost', port: 0 }],
  ])('%s', (text, expected) => expect(parseListenAddress(text, 'X')).toEqual(expected));

  it.each(['9901', '127.0.0.1', 'a:b', '1.2.3.4:70000'])('refuses %s and shows the form', (text) => {
    expect(() => parseListenAddress(text, 'PORTICO_CONTROL_ADDR')).toThrow(/PORTICO_CONTROL_ADDR: .* write host:port/);
  });
});
