import { describe, expect, it } from 'vitest';
import { callbackHeaders } from './callback-sender.js';
import { serviceSignature } from './signing.js';

const row = {
  id: '11111111-1111-4111-8111-111111111111',
  ingest_job_id: '22222222-2222-4222-8222-222222222222',
  event_type: 'ingest.failed' as const,
  callback_secret: 'k',
};

describe('callback request headers', () => {
  it('puts custom headers first and the service headers last', () => {
    const headers = callbackHeaders({ ...row, callback_headers: JSON.stringify({ 'X-Custom': 'a', Authorization: 'Bearer t' }) }, '{}', 1_700_000_000_123);
    expect(Object.keys(headers)).toEqual(['X-Custom', 'Authorization', 'content-type', 'user-agent', 'x-service-event', 'x-service-job-id', 'webhook-id', 'webhook-timestamp', 'x-service-signature', 'webhook-signature']);
    expect(headers['webhook-timestamp']).toBe('1700000000');
  });

  it('never lets a stored custom header replace or duplicate a reserved one, whatever its case', () => {
    const injected = { 'X-SERVICE-SIGNATURE': 'sha256=forged', 'content-type': 'text/plain', 'X-Service-Event': 'ingest.succeeded', 'x-service-job-id': 'other', 'Webhook-Id': 'x', 'User-Agent': 'evil', Host: 'evil.example' };
    const headers = callbackHeaders({ ...row, callback_headers: JSON.stringify(injected) }, '{"a":1}', 0);
    const names = Object.keys(headers).map((h) => h.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    expect(names).not.toContain('host');
    expect(headers['x-service-signature']).toBe(serviceSignature('k', '{"a":1}'));
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-service-event']).toBe('ingest.failed');
    expect(headers['x-service-job-id']).toBe(row.ingest_job_id);
    expect(headers['user-agent']).toBe('service-callback/26');
  });
});
