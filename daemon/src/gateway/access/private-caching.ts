/** jwt-guarded answers are per user: appends the `private` Cache-Control directive unless it is there. */
export function addPrivateCaching(headers: Record<string, string | string[]>): void {
  const current = headers['cache-control'];
  const text = Array.isArray(current) ? current.join(', ') : (current ?? '');
  if (/(^|,)\s*private\s*(,|$|=)/i.test(text)) return;
  headers['cache-control'] = text.trim() === '' ? 'private' : `${text}, private`;
}
