import { describe, expect, it } from 'vitest';
import { SESSIONS_URL, sessionsFromUrl, ariaSort, buildingText, callsText, fileSummary, filterKeys, isFiltered, keyActions, listInput, newestEventOf, nextSort, pageText, sessionTime, usageText, websiteHref } from './session-table';

describe('infosessions table logic', () => {
  it('flips the order on the same column and starts ascending on another', () => {
    expect(nextSort({ column: 'date', order: 'asc' }, 'date')).toEqual({ column: 'date', order: 'desc' });
    expect(nextSort({ column: 'date', order: 'desc' }, 'employer')).toEqual({ column: 'employer', order: 'asc' });
    expect(ariaSort({ column: 'date', order: 'desc' }, 'date')).toBe('descending');
    expect(ariaSort({ column: 'date', order: 'desc' }, 'id')).toBe('none');
  });

  it('tells a list narrowed by a filter from one with nothing loaded', () => {
    const none = { search: '', from: '', to: '', audience: '' };
    expect(isFiltered(none)).toBe(false);
    expect(isFiltered({ ...none, search: '  ' })).toBe(false);
    expect(isFiltered({ ...none, search: 'acme' })).toBe(true);
    expect(isFiltered({ ...none, from: '2026-01-01' })).toBe(true);
    expect(isFiltered({ ...none, audience: 'Engineering' })).toBe(true);
  });

  it('builds the list input, leaving out empty or half-typed filters', () => {
    expect(listInput({ search: '  google ', from: '2014-01-01', to: '2014-0', audience: '' }, { column: 'employer', order: 'desc' }, 2)).toEqual({
      search: 'google',
      from: '2014-01-01',
      sort: 'employer',
      order: 'desc',
      offset: 100,
      limit: 50,
    });
  });

  it('writes times, buildings, pages and websites for people', () => {
    expect(sessionTime({ start_time: '11:30', end_time: null })).toBe('11:30–?');
    expect(sessionTime({ start_time: null, end_time: null })).toBe('—');
    expect(buildingText({ building: { code: 'DC', name: null, room: '1301', latitude: null, longitude: null, map_url: null } })).toBe('DC 1301');
    expect(buildingText({ building: { code: null, name: null, room: null, latitude: null, longitude: null, map_url: null } })).toBe('—');
    expect(pageText(50, 50, 363)).toBe('51–100 of 363');
    expect(pageText(0, 0, 0)).toBe('no sessions');
    expect(websiteHref('mattermost.org')).toBe('http://mattermost.org');
    expect(websiteHref('https://x.example/careers')).toBe('https://x.example/careers');
    expect(websiteHref('javascript:alert(1)')).toBeNull();
    expect(websiteHref(null)).toBeNull();
  });

  it('summarises the CSV file: serving, skipped rows, or an error keeping the previous data', () => {
    const base = { file: '/x/infosessions.csv', loadedAt: null, rows: 363, rejected: [], warnings: [], error: null };
    expect(fileSummary(base, 'session')).toEqual({ tone: 'good', text: 'infosessions.csv: 363 rows' });
    expect(fileSummary({ ...base, rejected: [{ line: 3, reason: 'x' }] }, 'session').text).toBe('infosessions.csv: 363 rows, 1 row skipped');
    expect(fileSummary({ ...base, error: { message: 'line 2: a quoted field is never closed', at: '' } }, 'session')).toEqual({
      tone: 'bad',
      text: 'infosessions.csv: line 2: a quoted field is never closed; still serving the previous 363 sessions',
    });
    expect(fileSummary({ ...base, rows: 0, error: { message: 'the file does not exist', at: '' } }, 'session').text).toBe('infosessions.csv: the file does not exist; no sessions are served until it loads');
    expect(fileSummary({ ...base, file: '/x/buildings.csv', rows: 0, error: { message: 'the file does not exist', at: '' } }, 'building').text).toBe('buildings.csv: the file does not exist; no buildings are served until it loads');
    expect(fileSummary({ ...base, file: '/x/buildings.csv', rows: 10, error: { message: 'the file does not exist', at: '' } }, 'building').text).toBe('buildings.csv: the file does not exist; still serving the previous 10 buildings');
  });

  it('finds the newest event of a type, and the actions and usage of a key', () => {
    const ev = (id: string, type: string) => ({ id, type, at: '', level: 'info', message: '' }) as never;
    expect(newestEventOf([ev('b:3', 'log'), ev('b:2', 'infosessions.reloaded'), ev('b:1', 'infosessions.reloaded')], ['infosessions.reloaded'])).toBe('b:2');
    expect(keyActions('active')).toEqual(['ban', 'revoke']);
    expect(keyActions('banned')).toEqual(['unban', 'revoke']);
    expect(keyActions('revoked')).toEqual([]);
    expect(usageText({ requestsThisMonth: 3, monthlyLimit: null })).toBe('3');
    expect(usageText({ requestsThisMonth: 3, monthlyLimit: 10 })).toBe('3 / 10');
  });

  it("counts a key's calls in words that agree with the number", () => {
    expect(callsText(1)).toBe('1 call');
    expect(callsText(0)).toBe('0 calls');
    expect(callsText(1000)).toBe('1000 calls');
  });

  it('filters keys by words of the name or id and by state', () => {
    const key = (id: string, name: string, state: 'active' | 'banned' | 'revoked') => ({ id, name, state }) as never;
    const keys = [key('key_0a1b2c3d4e', 'Mobile app', 'active'), key('key_ffff000011', 'partner', 'banned'), key('key_1234567890', 'old mobile', 'revoked')];
    expect(filterKeys(keys, 'mobile', '').map((k) => k.name)).toEqual(['Mobile app', 'old mobile']);
    expect(filterKeys(keys, 'MOBILE', 'revoked').map((k) => k.name)).toEqual(['old mobile']);
    expect(filterKeys(keys, 'ffff', '').map((k) => k.name)).toEqual(['partner']);
    expect(filterKeys(keys, ' ', 'banned').map((k) => k.name)).toEqual(['partner']);
  });

  it('reads the filters, sort and page from the address, ignoring what makes no sense', () => {
    expect(sessionsFromUrl({ ...SESSIONS_URL, q: 'google', audience: 'MATH', sort: 'employer', order: 'desc', page: '3' })).toEqual({
      filters: { search: 'google', from: '', to: '', audience: 'MATH' },
      sort: { column: 'employer', order: 'desc' },
      page: 2,
    });
    expect(sessionsFromUrl({ ...SESSIONS_URL, sort: 'drop table', order: 'sideways', page: '-1' })).toEqual({ filters: { search: '', from: '', to: '', audience: '' }, sort: { column: 'date', order: 'asc' }, page: 0 });
  });
});
