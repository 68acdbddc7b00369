import { describe, expect, it } from 'vitest';
import {
  shortId,
  ackLabel,
  agoText,
  backendLabel,
  componentLabel,
  deliveryLabel,
  endpointAddress,
  formatClock,
  formatClockOrDate,
  formatDuration,
  formatUptime,
  healthLabel,
  jobLabel,
  jobOutcome,
  plural,
  labelText,
  lastErrorText,
  levelLabel,
  nackCodeText,
  reloadLabel,
  reloadOutcomeText,
  streamKindText,
  tookText,
  triesDetail,
  triesText,
} from './index.js';

describe('states: one glyph, word and tone for both consoles', () => {
  it('gives every state a glyph and a word, so colour is never the only signal', () => {
    for (const state of ['registered', 'starting', 'running', 'stopping', 'stopped', 'failed'] as const) {
      const label = componentLabel(state);
      expect(label.glyph).not.toBe('');
      expect(label.word).toBe(state);
    }
    expect(levelLabel('error')).toMatchObject({ word: 'error', tone: 'bad' });
    expect(labelText(componentLabel('running'))).toBe('● running');
  });

  it('labels deliveries, jobs and reloads', () => {
    expect([deliveryLabel('PENDING'), deliveryLabel('DELIVERED'), deliveryLabel('DEAD')].map(labelText)).toEqual(['◐ PENDING', '● DELIVERED', '✗ DEAD']);
    expect(deliveryLabel('DEAD').tone).toBe('bad');
    expect(['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'].map((s) => labelText(jobLabel(s as 'QUEUED')))).toEqual(['○ QUEUED', '◐ RUNNING', '● SUCCEEDED', '✗ FAILED', '– CANCELLED']);
    expect(reloadLabel('rejected')).toEqual({ glyph: '✗', word: 'rejected', tone: 'bad' });
    expect(reloadLabel('applied').tone).toBe('good');
  });

  it('labels backend health; a backend without a health check is unchecked', () => {
    expect(backendLabel({ state: 'unhealthy', checked: true })).toEqual({ glyph: '✗', word: 'unhealthy', tone: 'bad' });
    expect(backendLabel({ state: 'degraded', checked: true }).tone).toBe('busy');
    expect(backendLabel({ state: 'healthy', checked: false }).word).toBe('unchecked');
  });

  it('labels CDS health, ACK/NACK, gRPC codes, stream kinds and endpoints', () => {
    expect(healthLabel('UNHEALTHY')).toEqual({ glyph: '✗', word: 'UNHEALTHY', tone: 'bad' });
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    expect(ackLabel({ lastAck: { version: 'v2', at: at(1) }, lastNack: { version: 'v3', at: at(2) }, lastVersionSent: 'v3' }, 'v3').word).toBe('NACK');
    expect(ackLabel({ lastAck: { version: 'v3', at: at(3) }, lastNack: null, lastVersionSent: 'v3' }, 'v3').tone).toBe('good');
    expect(ackLabel({ lastAck: { version: 'v2', at: at(3) }, lastNack: null, lastVersionSent: 'v3' }, 'v3').tone).toBe('busy');
    expect(ackLabel({ lastAck: null, lastNack: null, lastVersionSent: null }, 'v3').word).toBe('nothing sent');
    expect(nackCodeText(3)).toBe('3 INVALID_ARGUMENT');
    expect(nackCodeText(99)).toBe('99');
    expect(streamKindText('delta').short).toBe('delta');
    expect(endpointAddress({ address: '::1', port: 80 })).toBe('[::1]:80');
    expect(endpointAddress({ address: '10.0.0.1', port: 8080 })).toBe('10.0.0.1:8080');
  });
});

describe('times: local 24-hour, with the date when not today', () => {
  it('writes a time of today as HH:MM:SS and one of another day with its date', () => {
    const now = new Date(2026, 4, 7, 9, 30).getTime();
    expect(formatClockOrDate(new Date(2026, 4, 7, 0, 0, 5).toISOString(), now)).toBe('00:00:05');
    expect(formatClockOrDate(new Date(2026, 4, 6, 23, 59, 59).toISOString(), now)).toBe('2026-05-06 23:59:59');
    expect(formatClockOrDate('not a time', now)).toBe('not a time');
  });

  it('keeps text that is not a time as it is', () => {
    expect(formatClock('not a time')).toBe('not a time');
    expect(formatClock(new Date(2025, 0, 2, 3, 4, 5).toISOString())).toBe('03:04:05');
  });
});

describe('deliveries: tries and the last error', () => {
  it('counts the tries of the current round, and every attempt after a reset', () => {
    expect(triesText({ attempts_in_round: 2, max_attempts: 5 })).toBe('2/5');
    expect(triesDetail({ attempts: 2, attempts_in_round: 2, max_attempts: 5 })).toBe('2/5');
    expect(triesDetail({ attempts: 6, attempts_in_round: 1, max_attempts: 5 })).toBe('1/5 (6 in all)');
  });

  it('gives the last error of a delivery still failing, the status code when there is no text, none once delivered', () => {
    expect(lastErrorText({ status: 'PENDING', last_error: 'receiver answered HTTP 503', last_status_code: 503 })).toBe('receiver answered HTTP 503');
    expect(lastErrorText({ status: 'DEAD', last_error: null, last_status_code: 500 })).toBe('HTTP 500');
    expect(lastErrorText({ status: 'PENDING', last_error: null, last_status_code: null })).toBeNull();
    expect(lastErrorText({ status: 'DELIVERED', last_error: null, last_status_code: 200 })).toBeNull();
  });
});

describe('durations', () => {
  it('writes durations compactly, and uptime with seconds', () => {
    expect([42, 303, 7_620, 273_600].map(formatDuration)).toEqual(['42s', '5m 03s', '2h 07m', '3d 04h']);
    expect(formatUptime(42.9)).toBe('42s');
    expect(formatUptime(2 * 3600 + 7 * 60 + 5)).toBe('2h 07m 05s');
    expect(formatUptime(3 * 86_400 + 4 * 3600 + 5 * 60 + 6)).toBe('3d 04h 05m');
    expect(formatUptime(-3)).toBe('0s');
  });

  it('says how long ago, and how long something took', () => {
    const now = Date.parse('2026-01-01T00:10:00Z');
    expect(agoText('2026-01-01T00:09:55Z', now)).toBe('5s ago');
    expect(agoText('2026-01-01T00:07:00Z', now)).toBe('3m 00s ago');
    expect(agoText(null, now)).toBe('never');
    expect([41, 340.4, 1_250, 10_000].map(tookText)).toEqual(['41 ms', '340 ms', '1.25 s', '10.0 s']);
  });
});

describe('outcomes', () => {
  it('sums a job up in one line', () => {
    expect(jobOutcome({ result_json: { error: 'bad.csv: row 2' } })).toBe('bad.csv: row 2');
    expect(jobOutcome({ result_json: { row_count: 3 } })).toBe('3 rows');
    expect(plural(1, 'cluster')).toBe('1 cluster');
    expect(plural(0, 'cluster')).toBe('0 clusters');
    expect(plural(2, 'delivery', 'deliveries')).toBe('2 deliveries');
    expect(jobOutcome({ result_json: { row_count: 1 } })).toBe('1 row');
    expect(jobOutcome({ result_json: { row_count: 0 } })).toBe('0 rows');
    expect(jobOutcome({ result_json: { relations: [1, 2] } })).toBe('2 relations');
    expect(jobOutcome({ result_json: { relations: [1] } })).toBe('1 relation');
    expect(jobOutcome({ result_json: { tables: [1] } })).toBe('1 table');
    expect(jobOutcome({ result_json: {} })).toBe('');
  });

  it('sums a reload up in one line: the diff, the first error, or why it could not apply', () => {
    const line = (d: { severity: string; summary: string }) => `a.hcl:2,1: ${d.summary}`;
    const problem = { severity: 'error', summary: 'Bad' };
    expect(reloadOutcomeText({ result: 'applied', diff: { summary: '+1 endpoint (/b)' }, diagnostics: [] }, line)).toBe('+1 endpoint (/b)');
    expect(reloadOutcomeText({ result: 'applied', diff: null, diagnostics: [] }, line)).toBe('unchanged');
    expect(reloadOutcomeText({ result: 'rejected', diagnostics: [problem, { severity: 'warning', summary: 'w' }, problem] }, line)).toBe('2 problems: a.hcl:2,1: Bad');
    expect(reloadOutcomeText({ result: 'failed', error: 'listen EADDRINUSE', diagnostics: [] }, line)).toBe('listen EADDRINUSE');
  });
});

describe('short ids', () => {
  it('shows the random tail of time-ordered (v7) ids, which share their leading time, and the head of any other id', () => {
    const sameMinute = ['01a20f17-9c3e-7a1b-8f00-4b2d9e6c11aa', '01a20f17-9d10-7c44-9e21-0c7f3a5b22bb'];
    expect(sameMinute.map(shortId)).toEqual(['9e6c11aa', '3a5b22bb']);
    expect(shortId('fc30329a-1111-4222-8333-444455556666')).toBe('fc30329a');
    expect(shortId('not-a-uuid-at-all')).toBe('not-a-uu');
  });
});
