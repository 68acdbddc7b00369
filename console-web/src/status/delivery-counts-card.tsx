import { useDeliveryCounts } from '../deliveries/use-delivery-counts';
import { AppLink } from '../router/app-link';
import '../deliveries/deliveries.css';

/** Webhook deliveries per status, DEAD first: what needs an operator. Absent when this process serves none. */
export function DeliveryCountsCard() {
  const counts = useDeliveryCounts();
  if (!counts) return null;
  return (
    <section className="card" aria-labelledby="delivery-counts-heading">
      <div className="card-heading">
        <h2 id="delivery-counts-heading">Webhook deliveries</h2>
        <AppLink to="/deliveries">All deliveries</AppLink>
      </div>
      <dl className="counts">
        <div className={counts.DEAD > 0 ? 'tone-bad' : undefined}>
          <dt>DEAD</dt>
          <dd data-testid="dead-count">{counts.DEAD}</dd>
        </div>
        <div>
          <dt>PENDING</dt>
          <dd data-testid="pending-count">{counts.PENDING}</dd>
        </div>
        <div>
          <dt>DELIVERED</dt>
          <dd>{counts.DELIVERED}</dd>
        </div>
      </dl>
      {counts.DEAD > 0 && <p className="muted">DEAD deliveries gave up after their last scheduled attempt; reset them on the Deliveries page once the receiver works.</p>}
    </section>
  );
}
