import { describe, expect, it } from 'vitest';
import type { Key } from 'ink';
import { GLOBAL_SCOPE, KeyRegistry, keyLabel, keyNames } from './key-registry.js';

const noKey: Key = {
  upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false,
  return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false,
  super: false, hyper: false, capsLock: false, numLock: false,
};

describe('KeyRegistry', () => {
  it('lets a view key win over a global one, and skips scopes that are only listed', () => {
    const registry = new KeyRegistry();
    const ran: string[] = [];
    registry.set({ id: 'events', title: 'Events', bindings: [{ keys: ['g'], description: 'top', run: () => ran.push('view g') }] });
    registry.set({ id: GLOBAL_SCOPE, title: 'Global', bindings: [{ keys: ['g', 'q'], description: 'x', run: () => ran.push('global') }] });
    expect(registry.scopes().map((s) => s.id)).toEqual([GLOBAL_SCOPE, 'events']);
    registry.dispatch('g');
    registry.set({ id: 'events', title: 'Events', state: 'listed', bindings: [{ keys: ['g'], description: 'top', run: () => ran.push('view g') }] });
    registry.dispatch('g');
    expect(registry.dispatch('z')).toBe(false);
    expect(ran).toEqual(['view g', 'global']);
  });

  it('tells listeners only when something shown changed, yet dispatches to the newest closure', () => {
    const registry = new KeyRegistry();
    let notified = 0;
    registry.subscribe(() => notified++);
    const ran: number[] = [];
    registry.set({ id: 'v', title: 'V', bindings: [{ keys: ['x'], description: 'd', run: () => ran.push(1) }] });
    registry.set({ id: 'v', title: 'V', bindings: [{ keys: ['x'], description: 'd', run: () => ran.push(2) }] });
    registry.dispatch('x');
    expect(notified).toBe(1);
    expect(ran).toEqual([2]);
    registry.set({ id: 'v', title: 'V', bindings: [{ keys: ['x'], description: 'changed', run: () => {} }] });
    expect(notified).toBe(2);
  });

  it('labels keys for people', () => {
    expect(keyLabel({ keys: ['up', 'k'], description: '', run: () => {} })).toBe('↑/k');
    expect(keyLabel({ keys: ['pagedown', 'ctrl+d'], description: '', run: () => {} })).toBe('PgDn/Ctrl+D');
  });

  it('splits typed-ahead text into one key per character', () => {
    expect(keyNames(':ev\r', noKey)).toEqual([':', 'e', 'v', 'enter']);
    expect(keyNames('\t\u007F\u0003', noKey)).toEqual(['tab', 'backspace', 'ctrl+c']);
    expect(keyNames('', { ...noKey, upArrow: true })).toEqual(['up']);
    expect(keyNames('c', { ...noKey, ctrl: true })).toEqual(['ctrl+c']);
  });
});
