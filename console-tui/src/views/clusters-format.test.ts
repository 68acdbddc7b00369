// What a proxy sends (node id, NACK message) reaches the terminal safely and readably.
import { describe, expect, it } from 'vitest';
import { printable, wrapLines } from './clusters-format.js';

describe('clusters view text', () => {
  it('turns control characters a proxy sent (escape sequences) into spaces', () => {
    expect(printable('bad\u001B[2Jcluster\u0007 x\u009B1m')).toBe('bad [2Jcluster  x 1m');
    expect(printable('edge-1')).toBe('edge-1');
  });

  it('wraps a NACK message at spaces, indents continuations, and cuts the last line with …', () => {
    const text = ' NACK from edge-1 of 0123abcd (code 3): cluster services: transport socket envoy.transport_sockets.tls not supported';
    const two = wrapLines(text, 60, 3);
    expect(two).toEqual([' NACK from edge-1 of 0123abcd (code 3): cluster services:', ' transport socket envoy.transport_sockets.tls not supported']);
    const one = wrapLines(text, 60, 1);
    expect(one).toHaveLength(1);
    expect(one[0]).toMatch(/^ NACK from edge-1 .{40,}…$/);
    expect(Array.from(one[0]!)).toHaveLength(60);
    for (const line of wrapLines('x'.repeat(500), 40, 3)) expect(Array.from(line).length).toBeLessThanOrEqual(40);
  });
});
