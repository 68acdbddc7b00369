import { useDeliveryCounts } from './use-delivery-counts';
import './deliveries.css';
import { plural } from '@portico/daemon/display';

/** The DEAD count beside the Deliveries navigation item; nothing when there are none. */
export function DeadBadge() {
  const counts = useDeliveryCounts();
  if (!counts || counts.DEAD === 0) return null;
  const label = plural(counts.DEAD, 'DEAD delivery', 'DEAD deliveries');
  return (
    <span className="nav-badge tone-bad" title={label} data-testid="dead-badge">
      <span aria-hidden="true">{counts.DEAD}</span>
      <span className="nav-badge-words">{`, ${label}`}</span>
    </span>
  );
}
