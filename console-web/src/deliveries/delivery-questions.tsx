import type { DeliveryView } from '@portico/daemon/control';
import { ConfirmQuestion } from '../ui/confirm-question';
import { TimeText } from '../ui/time-text';
import { confirmText, retryConfirmText } from './delivery-logic';

/** Asks before moving `count` DEAD deliveries (named by `what`) back to PENDING. */
export function ResetQuestion({ count, what, onReset, onKeep }: { count: number; what: string; onReset(): void; onKeep(): void }) {
  return (
    <ConfirmQuestion confirm={`Reset ${count}`} keep="Keep them" onConfirm={onReset} onKeep={onKeep} testId="reset-question">
      {confirmText(count, what)}
    </ConfirmQuestion>
  );
}

/** Asks before making a PENDING delivery due now instead of at its scheduled time. */
export function RetryQuestion({ delivery, onRetry, onKeep }: { delivery: Pick<DeliveryView, 'id' | 'next_attempt_at'>; onRetry(): void; onKeep(): void }) {
  return (
    <ConfirmQuestion confirm="Retry now" keep="Keep the schedule" onConfirm={onRetry} onKeep={onKeep} testId="retry-question">
      {retryConfirmText(delivery.id)} Its next attempt is now due at <TimeText iso={delivery.next_attempt_at} />.
    </ConfirmQuestion>
  );
}
