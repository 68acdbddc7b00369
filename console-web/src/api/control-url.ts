/** The control API's WebSocket endpoint on the same host as the page. */
export function controlSocketUrl(origin: string): string {
  const url = new URL('/trpc', origin);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}
