import { describe, expect, it } from 'vitest';
import { describeReload } from './area.js';

const result = { file: '/data/infosessions.csv', applied: true, rows: 2, rejected: [], warnings: [], error: null };
const problem = (line: number) => ({ line, reason: 'date: not a date' });

describe('the infosessions reload message', () => {
  it('counts sessions and skipped rows in words that fit the count', () => {
    expect(describeReload(result, null)).toEqual({ level: 'info', message: 'infosessions: loaded 2 sessions from /data/infosessions.csv' });
    expect(describeReload({ ...result, rows: 1, rejected: [problem(3)] }, null)).toEqual({
      level: 'warn',
      message: 'infosessions: loaded 1 session from /data/infosessions.csv; 1 row skipped (line 3: date: not a date)',
    });
    expect(describeReload({ ...result, rejected: [problem(3), problem(4)] }, null).message).toContain('; 2 rows skipped (line 3: date: not a date; line 4: date: not a date)');
  });

  it('says what still serves when the file cannot be read, and when the buildings table did not reload', () => {
    expect(describeReload({ ...result, rows: 0, applied: false, error: 'the file does not exist' }, null).message).toBe(
      'infosessions: /data/infosessions.csv: the file does not exist; no sessions are served until it loads',
    );
    expect(describeReload({ ...result, rows: 1, applied: false, error: 'line 2: a quoted field is never closed' }, 'buildings.csv: missing')).toEqual({
      level: 'error',
      message: 'infosessions: /data/infosessions.csv: line 2: a quoted field is never closed; still serving the previous 1 session; buildings table not reloaded: buildings.csv: missing',
    });
  });
});
