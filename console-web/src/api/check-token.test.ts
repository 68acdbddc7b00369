import { describe, expect, it } from 'vitest';
import { classifyStatus } from './check-token';
import { controlSocketUrl } from './control-url';
import { reconnectDelayMs } from './reconnect-delay';

describe('classifyStatus', () => {
  it('maps the control API answers to what the login screen says', () => {
    expect(classifyStatus(200)).toBe('accepted');
    expect(classifyStatus(401)).toBe('refused');
    expect(classifyStatus(503)).toBe('unreachable');
    expect(classifyStatus(500)).toBe('failed');
  });
});

describe('controlSocketUrl', () => {
  it('uses ws on http and wss on https, same host', () => {
    expect(controlSocketUrl('http://127.0.0.1:9901')).toBe('ws://127.0.0.1:9901/trpc');
    expect(controlSocketUrl('https://ops.example:8443')).toBe('wss://ops.example:8443/trpc');
  });
});

describe('reconnectDelayMs', () => {
  it('starts quick and caps at three seconds', () => {
    expect(reconnectDelayMs(0)).toBe(250);
    expect(reconnectDelayMs(1)).toBe(500);
    expect(reconnectDelayMs(10)).toBe(3_000);
  });
});
