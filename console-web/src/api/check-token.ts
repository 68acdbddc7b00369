export type TokenCheck = 'accepted' | 'refused' | 'unreachable' | 'failed';

/**
 * Asks the daemon whether `token` is accepted, with the cheapest authenticated call.
 * A plain fetch, because only the status code matters here.
 */
export async function checkToken(token: string, origin: string = location.origin): Promise<TokenCheck> {
  let response: Response;
  try {
    response = await fetch(`${origin}/trpc/system.status`, {
      headers: { Authorization: `Bearer ${token}` },
      cache: 'no-store',
    });
  } catch {
    return 'unreachable';
  }
  return classifyStatus(response.status);
}

export function classifyStatus(status: number): TokenCheck {
  if (status === 401 || status === 403) return 'refused';
  if (status >= 200 && status < 300) return 'accepted';
  if (status === 502 || status === 503 || status === 504) return 'unreachable';
  return 'failed';
}
