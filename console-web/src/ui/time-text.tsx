import { formatClockOrDate, formatDateTime } from '../status/time-format';

/**
 * A timestamp in the consoles' one time format: local 24-hour `HH:MM:SS`, with the date when it
 * is not today; the full date on hover and for assistive tech.
 */
export function TimeText({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatClockOrDate(iso, Date.now())}
    </time>
  );
}
