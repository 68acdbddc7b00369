import type { DaemonEvent, SystemStatus } from '@portico/daemon/control';

/** Shows a component's new state at once; the refetch that follows brings the rest. */
export function applyEventToStatus(status: SystemStatus, event: DaemonEvent): SystemStatus {
  const changed = event.type === 'component.state' ? event.component : undefined;
  if (!changed) return status;
  const known = status.components.some((c) => c.name === changed.name);
  const components = known
    ? status.components.map((c) => (c.name === changed.name ? changed : c))
    : [...status.components, changed];
  return { ...status, components };
}
