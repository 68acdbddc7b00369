/**
 * An epoch time as the log lines show it (ISO 8601, UTC, ms). `toISOString` formats through
 * V8's date printer (about 7,000 instructions a call, counted with callgrind), and a request's
 * two lines format two times, so the text up to the second is kept for the last two seconds
 * (a backend line and an access line, written one after the other, can start in two) and only
 * the milliseconds are appended. The last millisecond's text is kept whole: requests that
 * start in the same millisecond (a few at a time under load) share one string, one piece of
 * their lines instead of two.
 */
let newestSecond = Number.NaN;
let newestPrefix = '';
let olderSecond = Number.NaN;
let olderPrefix = '';
let lastMs = Number.NaN;
let lastText = '';

/** `000Z` to `999Z`. */
const MILLIS = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}Z`);
/** Year 10000: from there `toISOString` writes a six-digit, signed year. */
const FOUR_DIGIT_YEARS_END = 253_402_300_800_000;
/** `YYYY-MM-DDTHH:MM:SS.` */
const PREFIX_LENGTH = 20;

export function isoTime(at: number | Date): string {
  // As Date does: a fractional time is cut to its millisecond, toward zero.
  const ms = Math.trunc(typeof at === 'number' ? at : at.getTime());
  if (ms === lastMs) return lastText;
  const second = Math.floor(ms / 1000);
  if (second === newestSecond) return remember(ms, newestPrefix + MILLIS[ms - second * 1000]!);
  if (second === olderSecond) return remember(ms, olderPrefix + MILLIS[ms - second * 1000]!);
  // Before 1970 or after 9999 (and NaN, which throws as Date does): formatted as it comes.
  const iso = new Date(ms).toISOString();
  if (!(ms >= 0 && ms < FOUR_DIGIT_YEARS_END)) return iso;
  olderSecond = newestSecond;
  olderPrefix = newestPrefix;
  newestSecond = second;
  newestPrefix = iso.slice(0, PREFIX_LENGTH);
  return remember(ms, iso);
}

function remember(ms: number, text: string): string {
  lastMs = ms;
  lastText = text;
  return text;
}
