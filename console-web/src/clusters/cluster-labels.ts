import type { CdsClientView, ClusterView } from '@portico/daemon/control';
import { endpointAddress } from '@portico/daemon/display';

// Labels both consoles share (health, ACK/NACK, gRPC codes, stream kinds) are in the display layer.
export { ackLabel, healthLabel, nackCodeText, streamKindText } from '@portico/daemon/display';

export function endpointText(c: ClusterView): string {
  return c.endpoints.map(endpointAddress).join(', ');
}

export function subscriptionText(c: CdsClientView): string {
  const names = c.subscriptions.names;
  if (c.subscriptions.wildcard) return names.length > 0 ? `* (wildcard) + ${names.join(', ')}` : '* (wildcard)';
  return names.length === 0 ? '(nothing)' : names.join(', ');
}
