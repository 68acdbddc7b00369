import type { ButtonHTMLAttributes } from 'react';
import { useLive } from './live-context';
import { actionsOffReason } from './live-state';

/** Why buttons that ask the daemon to change something are off right now, or null when they work. */
export function useActionsOff(): string | null {
  return actionsOffReason(useLive());
}

/**
 * A button that asks the daemon to change something (reload, reset, cancel, create, revoke):
 * disabled while the link is down, with the reason on hover, instead of failing with
 * "Failed to fetch"; enabled again by itself when the daemon is back.
 */
export function ActionButton({ disabled, title, ...rest }: ButtonHTMLAttributes<HTMLButtonElement>) {
  const off = useActionsOff();
  return <button {...rest} disabled={disabled || off !== null} title={off ?? title} data-actions-off={off !== null ? 'true' : undefined} />;
}
