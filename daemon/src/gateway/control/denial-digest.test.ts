import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PublishInput } from '../../control/event-bus.js';
import type { AccessDenial } from '../contracts.js';
import { DenialDigest } from './denial-digest.js';

const denial = (type: string, label: string | null, endpoint = '/api/**'): AccessDenial => ({ at: new Date().toISOString(), type, label, server: null, endpoint, method: 'GET', path: '/api/x', clientIp: '127.0.0.1' });

afterEach(() => vi.useRealTimers());

describe('DenialDigest', () => {
  it('publishes the first refusal at once and the rest of the window as one summary with a rate', () => {
    vi.useFakeTimers();
    const events: PublishInput[] = [];
    const digest = new DenialDigest({ publish: (e) => events.push(e), windowMs: 10_000 });
    digest.record(denial('jwt_token_missing', 'tok'));
    for (let i = 0; i < 29; i++) digest.record(denial('jwt_token_missing', 'tok', i % 2 ? '/api/**' : '/admin/**'));
    digest.record(denial('basic_auth', 'ops', '/ops'));
    expect(events.map((e) => e.message)).toEqual(['access denied: jwt_token_missing by access control "tok" on GET /api/**', 'access denied: basic_auth by access control "ops" on GET /ops']);
    vi.advanceTimersByTime(10_000);
    expect(events.slice(2).map((e) => [e.type, e.level, e.message])).toEqual([['gateway.access_denied', 'warn', 'access denied ×29 more: jwt_token_missing by access control "tok" on /admin/**, /api/** (174/min)']]);
    // Quiet windows publish nothing, and the next refusal is news again.
    vi.advanceTimersByTime(30_000);
    expect(events).toHaveLength(3);
    digest.record(denial('beta_insufficient_permissions', null));
    expect(events.at(-1)?.message).toBe('access denied: beta_insufficient_permissions by the permission check on GET /api/**');
    digest.close();
  });

  it("names the gateway's own checks as what refused: the path check, the method check", () => {
    vi.useFakeTimers();
    const events: PublishInput[] = [];
    const digest = new DenialDigest({ publish: (e) => events.push(e), windowMs: 10_000 });
    digest.record(denial('path_escape', null, '/**'));
    digest.record(denial('path_escape', null, '/**'));
    digest.record(denial('method_override', null));
    vi.advanceTimersByTime(10_000);
    expect(events.map((e) => e.message)).toEqual([
      'access denied: path_escape by the path check on GET /**',
      'access denied: method_override by the method check on GET /api/**',
      'access denied ×1 more: path_escape by the path check on /** (6.0/min)',
    ]);
    digest.close();
  });

  it('never puts the request path or anything of the request but method and route in an event', () => {
    const events: PublishInput[] = [];
    const digest = new DenialDigest({ publish: (e) => events.push(e) });
    digest.record({ ...denial('jwt', 'tok'), path: '/reset/SECRET-IN-PATH' });
    digest.record({ ...denial('jwt', 'tok'), path: '/reset/SECRET-IN-PATH' });
    digest.close();
    expect(events).toHaveLength(2);
    expect(JSON.stringify(events)).not.toContain('SECRET');
  });
});
