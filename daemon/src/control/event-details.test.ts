import { describe, expect, it } from 'vitest';
import { redact } from '../core/logger.js';
import { eventDetails } from './event-details.js';

describe('eventDetails: the fields of a warning as event details', () => {
  it('keeps ids, numbers, flags and the error text, leaving the component out', () => {
    const fields = redact({ component: 'callback-worker', id: 'd-1', job_id: 'j-1', attempts: '2/5', terminal: false, status: null, error: new Error('ECONNREFUSED 127.0.0.1:9'), target: 'https://hooks.example.com/h' });
    expect(eventDetails(fields)).toEqual({ id: 'd-1', job_id: 'j-1', attempts: '2/5', terminal: false, status: null, error: 'ECONNREFUSED 127.0.0.1:9', target: 'https://hooks.example.com/h' });
  });

  it('shows no secret: keys the logger hides stay ***, user info in a URL is dropped', () => {
    const fields = redact({ authorization: 'Bearer abc', signing_secret: 'whsec_x', error: 'GET https://ada:pw@hooks.example.com/h failed' });
    const details = eventDetails(fields)!;
    expect(details).toEqual({ authorization: '***', signing_secret: '***', error: 'GET https://hooks.example.com/h failed' });
    expect(JSON.stringify(details)).not.toMatch(/abc|whsec_x|pw@/);
  });

  it('turns objects into short JSON and cuts long text', () => {
    const details = eventDetails({ where: { file: 'a.hcl', line: 3 }, body: 'x'.repeat(2000) })!;
    expect(details.where).toBe('{"file":"a.hcl","line":3}');
    expect(String(details.body)).toHaveLength(500);
    expect(String(details.body).endsWith('…')).toBe(true);
  });

  it('gives nothing for a line without fields', () => {
    expect(eventDetails({ component: 'store' })).toBeUndefined();
  });
});
