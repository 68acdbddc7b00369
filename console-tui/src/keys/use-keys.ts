import { createContext, useContext, useLayoutEffect, useSyncExternalStore } from 'react';
import { KeyRegistry, type KeyBinding, type KeyScope, type KeyScopeState } from './key-registry.js';

export const KeyRegistryContext = createContext<KeyRegistry>(new KeyRegistry());

export function useKeyRegistry(): KeyRegistry {
  return useContext(KeyRegistryContext);
}

/** Registers a component's bindings while it is mounted, in the given state. */
export function useKeyScope(id: string, title: string, bindings: readonly KeyBinding[], state: KeyScopeState = 'active'): void {
  const registry = useKeyRegistry();
  useLayoutEffect(() => {
    if (state === 'off') registry.remove(id);
    else registry.set({ id, title, bindings, state });
  });
  useLayoutEffect(() => () => registry.remove(id), [registry, id]);
}

/** The registered scopes, re-rendering when what they show changes. */
export function useKeyScopes(): readonly KeyScope[] {
  const registry = useKeyRegistry();
  return useSyncExternalStore(registry.subscribe, registry.scopes);
}
