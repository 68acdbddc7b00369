import { describe, expect, it } from 'vitest';
import { actionsOff, screenClock, staleText } from './freshness.js';

describe('freshness while the link is down', () => {
  it('runs the screen clock while connected and stops it at the moment the link dropped', () => {
    expect(screenClock({ disconnectedAt: null }, 10_000)).toBe(10_000);
    expect(screenClock({ disconnectedAt: 4_000 }, 10_000)).toBe(4_000);
  });

  it('says how old the screen is, as a local time, only while disconnected', () => {
    const dropped = new Date(2026, 4, 7, 14, 2, 11).getTime();
    expect(staleText({ disconnectedAt: null }, dropped)).toBeNull();
    expect(staleText({ disconnectedAt: dropped }, dropped + 60_000)).toBe('stale — last update 14:02:11');
    expect(staleText({ disconnectedAt: dropped }, dropped + 86_400_000)).toBe('stale — last update 2026-05-07 14:02:11');
  });

  it('turns the daemon’s actions off while disconnected or refused, with a reason for each', () => {
    expect(actionsOff({ connection: 'connected' })).toBeNull();
    expect(actionsOff({ connection: 'connecting' })).toBeNull();
    expect(actionsOff({ connection: 'disconnected' })).toEqual({ short: 'actions off while disconnected', long: 'off while disconnected; it works again once the daemon is back' });
    expect(actionsOff({ connection: 'refused' })?.short).toBe('actions off: token refused');
  });
});
