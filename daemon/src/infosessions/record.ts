/** A building as the API returns it; every value may be null. */
export interface Building {
  code: string | null;
  name: string | null;
  room: string | null;
  latitude: number | null;
  longitude: number | null;
  map_url: string | null;
}

/** One element of `data`, fields in the order the real API emitted them. */
export interface Infosession {
  id: number | string | null;
  employer: string | null;
  date: string | null;
  day: string | null;
  start_time: string | null;
  end_time: string | null;
  description: string | null;
  website: string | null;
  building: Building;
  audience: string[] | null;
  link: string | null;
}

/** A loaded session: the public record plus what only operators see. */
export interface SessionEntry {
  record: Infosession;
  /** Legacy "audience" text (e.g. "Co-op Students"); the v2 record has no field for it. */
  students: string | null;
  /** Line of the CSV the row starts on. */
  line: number;
}

/** A row of the CSV that was skipped (or kept with a warning), with its line and why. */
export interface RowProblem {
  line: number;
  reason: string;
}

export const MONTH_NAMES = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
] as const;

/** "January" for "2016-01-05"; the real API put the month name in `day`. */
export function monthName(isoDate: string): string | null {
  return MONTH_NAMES[Number(isoDate.slice(5, 7)) - 1] ?? null;
}

/** True for a real calendar date yyyy-mm-dd. */
export function isCalendarDate(isoDate: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}
