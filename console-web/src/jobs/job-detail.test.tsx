// A job's Details as the browser gets them: what the terminal's detail says, and a link naming its delivery apart from others.
import type { JobView } from '@portico/daemon/control';
import { formatClockOrDate } from '@portico/daemon/display';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { JobDetail } from './job-detail';

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
const JOB = 'cd926fe7-b8e2-436c-bce4-16d19f662521';
// UUIDv7: the first 8 characters are the creation time, the same for every delivery made that minute.
const DELIVERY = '01a20f22-b3c5-7422-883d-8c0e9038fb86';
const FINISHED = '2026-01-02T10:00:05.000Z';

const job: JobView = {
  ingest_job_id: JOB,
  tenant_id: 'acme',
  workspace_id: 'main',
  dataset_id: '535c88fc-369c-4d1a-8d61-1bf5fd53c838',
  table_id: null,
  file_id: null,
  snapshot_id: null,
  job_kind: 'PARSE_AND_INGEST',
  status: 'SUCCEEDED',
  attempts: 2,
  request_json: {},
  result_json: { row_count: 2 },
  created_at: '2026-01-02T10:00:00.000Z',
  updated_at: FINISHED,
  finished_at: FINISHED,
  callback: { url: 'https://hooks.example.com/in', secret: null, headers: {} },
  delivery: {
    id: DELIVERY,
    status: 'DEAD',
    attempts: 2,
    attempts_in_round: 2,
    max_attempts: 2,
    next_attempt_at: FINISHED,
    last_attempt_at: FINISHED,
    last_status_code: null,
    last_error: 'ECONNREFUSED',
    finished_at: FINISHED,
  },
};

describe('JobDetail', () => {
  it('shows how many times a worker ran the job and when it finished, as the terminal does', () => {
    const shown = text(renderToStaticMarkup(<JobDetail job={job} />));
    expect(shown).toContain(`Job id ${JOB} Dataset 535c88fc-369c-4d1a-8d61-1bf5fd53c838 Attempts 2 Finished ${formatClockOrDate(FINISHED, Date.now())} Callback`);
  });

  it('says a job still running has not finished', () => {
    const shown = text(renderToStaticMarkup(<JobDetail job={{ ...job, status: 'RUNNING', attempts: 1, finished_at: null, delivery: null }} />));
    expect(shown).toContain('Attempts 1 Finished not yet (RUNNING)');
    expect(shown).toContain('Delivery None yet: written when the job finishes.');
  });

  it('names its delivery by the random end of the UUIDv7, not the time-ordered start every delivery of that minute shares', () => {
    const html = renderToStaticMarkup(<JobDetail job={job} />);
    expect(html).toContain(`<a href="/deliveries?job=${JOB}&amp;delivery=${DELIVERY}">Open delivery 9038fb86</a>`);
    expect(html).not.toContain('Open delivery 01a20f22');
    // Glyph and word are one unbreakable badge.
    expect(html).toContain('<span class="tone-bad nowrap">✗ DEAD</span>');
  });
});
