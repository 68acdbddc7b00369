import { createHmac, timingSafeEqual } from 'node:crypto';

/** `sha256=<hex HMAC-SHA256 of the raw body keyed by the secret>` (X-Service-Signature). */
export function serviceSignature(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Standard Webhooks `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
 * keyed by the secret's UTF-8 bytes (a Standard Webhooks library takes it as
 * `whsec_` + base64(secret)).
 */
export function standardWebhookSignature(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  const mac = createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** Constant-time comparison of two signature strings. */
export function signaturesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface VerifyInput {
  secret: string;
  body: Uint8Array;
  /** X-Service-Signature, when present. */
  serviceSignature?: string | undefined;
  /** webhook-id / webhook-timestamp / webhook-signature, when present. */
  webhookId?: string | undefined;
  webhookTimestamp?: string | undefined;
  webhookSignature?: string | undefined;
  /** Reject Standard Webhooks timestamps further than this from `now` (seconds); null: don't check. */
  toleranceSeconds?: number | null;
  now?: number;
}

export interface VerifyResult {
  valid: boolean;
  checked: string[];
  problems: string[];
}

/** What a receiver does: every signature present must match; at least one must be present. */
export function verifySignatures(input: VerifyInput): VerifyResult {
  const checked: string[] = [];
  const problems: string[] = [];
  if (input.serviceSignature !== undefined) {
    checked.push('X-Service-Signature');
    if (!signaturesEqual(input.serviceSignature.trim(), serviceSignature(input.secret, input.body))) problems.push('X-Service-Signature does not match the body and secret');
  }
  if (input.webhookSignature !== undefined) {
    checked.push('webhook-signature');
    const ts = Number(input.webhookTimestamp);
    if (!input.webhookId || !Number.isInteger(ts)) problems.push('webhook-signature needs webhook-id and an integer webhook-timestamp');
    else {
      const expected = standardWebhookSignature(input.secret, input.webhookId, ts, input.body);
      // The header may list several space-separated signatures (key rotation); one match is enough.
      const given = input.webhookSignature.trim().split(/\s+/);
      if (!given.some((g) => signaturesEqual(g, expected))) problems.push('webhook-signature does not match the id, timestamp, body and secret');
      const tolerance = input.toleranceSeconds ?? null;
      const now = Math.floor((input.now ?? Date.now()) / 1000);
      if (tolerance !== null && Math.abs(now - ts) > tolerance) problems.push(`webhook-timestamp is ${now - ts} s away from now (tolerance ${tolerance} s): a replay or a wrong clock`);
    }
  }
  if (checked.length === 0) problems.push('no signature header given (X-Service-Signature or webhook-signature)');
  return { valid: problems.length === 0, checked, problems };
}
