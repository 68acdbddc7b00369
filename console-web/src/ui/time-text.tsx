import { formatClock, formatDateTime } from '../status/time-format';

/** A timestamp shown as local `HH:MM:SS`, full date on hover and for assistive tech. */
export function TimeText({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatClock(iso)}
    </time>
  );
}
