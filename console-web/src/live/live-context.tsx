import { createContext, useContext, type ReactNode } from 'react';
import type { ControlClient } from '../api/control-client';
import type { LiveState } from './live-state';

interface LiveContextValue {
  live: LiveState;
  client: ControlClient;
}

const LiveContext = createContext<LiveContextValue | null>(null);

export function LiveProvider({ value, children }: { value: LiveContextValue; children: ReactNode }) {
  return <LiveContext.Provider value={value}>{children}</LiveContext.Provider>;
}

function useLiveContext(): LiveContextValue {
  const value = useContext(LiveContext);
  if (!value) throw new Error('useLive/useControlClient must be used inside <LiveProvider> (only views under the shell have a session).');
  return value;
}

/** The live state, or null outside a session (the login screen). */
export function useOptionalLive(): LiveState | null {
  return useContext(LiveContext)?.live ?? null;
}

/** Status, events and link state, kept live by the shell for every view. */
export function useLive(): LiveState {
  return useLiveContext().live;
}

/** The typed control API client for views that call their own procedures. */
export function useControlClient(): ControlClient {
  return useLiveContext().client;
}
