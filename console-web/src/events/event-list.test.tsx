// The events list as the browser gets it: a relayed warning names its process and shows its details.
import type { DaemonEvent } from '@portico/daemon/control';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { EventList } from './event-list';

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&quot;/g, '"').replace(/\s+/g, ' ').trim();

describe('EventList', () => {
  it('shows where a relayed warning came from and its delivery, job, attempt, target and error', () => {
    const warning: DaemonEvent = {
      id: 'b:2',
      type: 'log',
      level: 'warn',
      at: '2026-01-01T10:00:00.000Z',
      message: 'callback-worker: callback_attempt_failed',
      origin: { bootId: 'w1', mode: 'callback-worker', pid: 5151, host: 'worker-host' },
      details: { id: 'd-1', job_id: 'j-1', attempts: '2/5', error: 'receiver answered HTTP 503', target: 'https://hooks.example.com/h' },
    };
    const html = renderToStaticMarkup(<EventList events={[warning]} label="Daemon events" />);
    expect(text(html)).toContain('callback-worker: callback_attempt_failed from callback-worker pid 5151');
    expect(html).toContain('title="daemon process w1 on worker-host"');
    expect(text(html)).toContain('id d-1 job_id j-1 attempts 2/5 error receiver answered HTTP 503 target https://hooks.example.com/h');
  });

  it('says why the list is empty', () => {
    expect(text(renderToStaticMarkup(<EventList events={[]} label="x" empty="No events match the filter." />))).toBe('No events match the filter.');
  });
});
