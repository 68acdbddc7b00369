/** Query parameter names whose values are secrets in a log line. */
const SECRET_PARAM = /(token|secret|passw|pwd|auth|key|sig|code|session|credential)/i;

/**
 * The URL as every log line shows it (access and backend lines, health checks): no user
 * info, and the values of secret-looking query parameters (`key`, `access_token`, `code`,
 * `client_secret`, `password`, `signature`, `session`...) as `***`.
 */
export function loggableUrl(url: URL): string {
  const secret = url.search === '' ? [] : [...new Set(url.searchParams.keys())].filter((name) => SECRET_PARAM.test(name));
  if (url.username === '' && url.password === '' && secret.length === 0) return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  // Rewriting the query re-encodes it, so only when there is something to hide.
  for (const name of secret) {
    const count = copy.searchParams.getAll(name).length;
    copy.searchParams.delete(name);
    for (let i = 0; i < count; i++) copy.searchParams.append(name, '***');
  }
  return copy.href;
}
