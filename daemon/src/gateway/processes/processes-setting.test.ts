import { describe, expect, it } from 'vitest';
import { readGatewayProcesses } from './processes-setting.js';

describe('PORTICO_GATEWAY_PROCESSES', () => {
  it('is 1 (the daemon serves the ports itself) unless set', () => {
    expect(readGatewayProcesses({})).toBe(1);
    expect(readGatewayProcesses({ PORTICO_GATEWAY_PROCESSES: ' ' })).toBe(1);
  });

  it('takes a count, or auto for one per core', () => {
    expect(readGatewayProcesses({ PORTICO_GATEWAY_PROCESSES: '3' })).toBe(3);
    expect(readGatewayProcesses({ PORTICO_GATEWAY_PROCESSES: 'auto' }, () => 4)).toBe(4);
    expect(readGatewayProcesses({ PORTICO_GATEWAY_PROCESSES: 'auto' }, () => 200)).toBe(64);
  });

  it('names the variable and what it takes when the value is bad', () => {
    for (const bad of ['0', '-1', '1.5', 'two', '65']) {
      expect(() => readGatewayProcesses({ PORTICO_GATEWAY_PROCESSES: bad })).toThrow(`PORTICO_GATEWAY_PROCESSES: must be an integer from 1 to 64 or 'auto' (one per core), got '${bad}'`);
    }
  });
});
