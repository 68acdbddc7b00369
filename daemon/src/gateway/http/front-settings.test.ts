import { describe, expect, it } from 'vitest';
import { readGatewayFrontSettings } from './front-settings.js';

describe('PORTICO_GATEWAY_* limits and timeouts', () => {
  it('defaults drop a slow header sender within about 10 s and keep uploads a few minutes', () => {
    expect(readGatewayFrontSettings({})).toEqual({ headerTimeoutMs: 10_000, bodyTimeoutMs: 300_000, idleTimeoutMs: 60_000, maxConnections: 4096, maxHeaderBytes: 32_768, maxUrlBytes: 8192 });
  });

  it('reads Go durations (or seconds) and integers', () => {
    const front = readGatewayFrontSettings({
      PORTICO_GATEWAY_HEADER_TIMEOUT: '2s',
      PORTICO_GATEWAY_BODY_TIMEOUT: '1m30s',
      PORTICO_GATEWAY_IDLE_TIMEOUT: '15',
      PORTICO_GATEWAY_MAX_CONNECTIONS: '100',
      PORTICO_GATEWAY_MAX_HEADER_SIZE: '65536',
      PORTICO_GATEWAY_MAX_URL_LENGTH: '2048',
    });
    expect(front).toEqual({ headerTimeoutMs: 2000, bodyTimeoutMs: 90_000, idleTimeoutMs: 15_000, maxConnections: 100, maxHeaderBytes: 65_536, maxUrlBytes: 2048 });
  });

  it('names every bad variable at once', () => {
    expect(() => readGatewayFrontSettings({ PORTICO_GATEWAY_HEADER_TIMEOUT: 'soon', PORTICO_GATEWAY_IDLE_TIMEOUT: '0', PORTICO_GATEWAY_MAX_CONNECTIONS: '1.5' })).toThrow(
      /PORTICO_GATEWAY_HEADER_TIMEOUT: 'soon' is not a duration[\s\S]*PORTICO_GATEWAY_IDLE_TIMEOUT: '0' is too short[\s\S]*PORTICO_GATEWAY_MAX_CONNECTIONS: must be an integer from 1/,
    );
  });

  it('refuses a body timeout shorter than the header timeout (it counts from the same first byte)', () => {
    expect(() => readGatewayFrontSettings({ PORTICO_GATEWAY_HEADER_TIMEOUT: '20s', PORTICO_GATEWAY_BODY_TIMEOUT: '10s' })).toThrow(/PORTICO_GATEWAY_BODY_TIMEOUT: 10000ms is shorter than PORTICO_GATEWAY_HEADER_TIMEOUT/);
  });
});
