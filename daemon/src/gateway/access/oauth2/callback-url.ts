/**
 * A redirect_uri or sp_acs_url as sent: absolute as written, or a path resolved against
 * the origin of the client request (which `accept_forwarded_url` may have changed).
 */
export function resolveCallbackUrl(written: string, requestUrl: URL): string {
  return written.startsWith('/') ? new URL(written, requestUrl.origin).href : written;
}
