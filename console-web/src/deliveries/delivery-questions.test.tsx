// The Deliveries view's questions as the browser gets them: the shared in-page question (its way
// out focused, Esc takes it), naming what a reset or a retry does to what.
import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ControlClient } from '../api/control-client';
import { LiveProvider } from '../live/live-context';
import { initialLiveState, liveReducer } from '../live/live-state';
import { ResetQuestion, RetryQuestion } from './delivery-questions';

const client = {} as ControlClient;
const live = liveReducer(initialLiveState, { type: 'subscription-started' });
const ID = '0b7e2a4c-1d2e-4f60-8a9b-0c1d2e3f4a5b';

function markup(node: ReactNode): string {
  return renderToStaticMarkup(<LiveProvider value={{ live, client }}>{node}</LiveProvider>);
}

describe('delivery questions', () => {
  it('asks before a reset with the shared question: the count, what it resets, Reset n and a way out', () => {
    const html = markup(<ResetQuestion count={2} what="all matching: every job and URL" onReset={() => {}} onKeep={() => {}} />);
    expect(html).toMatch(/^<div class="notice confirm-question" role="alertdialog" aria-labelledby="([^"]+)" data-testid="reset-question"><p id="\1">Reset 2 DEAD deliveries \(all matching: every job and URL\) to PENDING\? They are retried at the worker&#x27;s next poll\.<\/p>/);
    expect(html).toContain('<button type="button" class="button-danger">Reset 2</button>');
    expect(html).toContain('<button type="button">Keep them</button>');
  });

  it('asks before a retry now with the shared question, saying when the attempt was due', () => {
    const html = markup(<RetryQuestion delivery={{ id: ID, next_attempt_at: '2026-01-01T10:00:00.000Z' }} onRetry={() => {}} onKeep={() => {}} />);
    expect(html).toMatch(/^<div class="notice confirm-question" role="alertdialog" aria-labelledby="([^"]+)" data-testid="retry-question"><p id="\1">Retry delivery 0b7e2a4c now\? A callback worker attempts it at its next poll instead of at its scheduled time\. Its next attempt is now due at <time dateTime="2026-01-01T10:00:00.000Z"/);
    expect(html).toContain('<button type="button" class="button-danger">Retry now</button>');
    expect(html).toContain('<button type="button">Keep the schedule</button>');
  });
});
