import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from './did-you-mean.js';

describe('did you mean', () => {
  it('counts a swap of two neighbours as one edit', () => {
    expect(editDistance('delivereis', 'deliveries')).toBe(1);
    expect(editDistance('evnets', 'events')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('picks the closest name within one edit per three letters, else nothing', () => {
    const names = ['status', 'events', 'config', 'backends', 'clusters', 'infosessions', 'keys', 'jobs', 'deliveries', 'help', 'quit'];
    expect(closestName('delivereis', names)).toBe('deliveries');
    expect(closestName('Evnts', names)).toBe('events');
    expect(closestName('infosesions', names)).toBe('infosessions');
    expect(closestName('bakcends', names)).toBe('backends');
    expect(closestName('jbos', names)).toBe('jobs');
    expect(closestName('nope', names)).toBeNull();
    expect(closestName('frobnicate', names)).toBeNull();
    // One or two letters are close to everything: no guess.
    expect(closestName('xx', names)).toBeNull();
  });
});
