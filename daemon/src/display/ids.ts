/**
 * The 8 characters a console shows for an id. For a time-ordered UUID (version 7: outbox rows
 * and attempts) the first characters are the creation time, shared by every row made in the
 * same minute, so the last 8 (random) are shown; for any other id, the first 8.
 */
export function shortId(id: string): string {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(id) ? id.slice(-8) : id.slice(0, 8);
}
