import type { ApiKeySummary, CsvFileStatus, DaemonEvent, SessionView } from '@portico/daemon/control';
import { plural, stillServingText } from '@portico/daemon/display';

export type SortColumn = 'date' | 'employer' | 'id' | 'building';
export interface SortState {
  column: SortColumn;
  order: 'asc' | 'desc';
}

/** Clicking a column header: the same column flips its order, another starts ascending. */
export function nextSort(current: SortState, column: SortColumn): SortState {
  if (current.column === column) return { column, order: current.order === 'asc' ? 'desc' : 'asc' };
  return { column, order: 'asc' };
}

/** aria-sort of a header for the current sort. */
export function ariaSort(current: SortState, column: SortColumn): 'ascending' | 'descending' | 'none' {
  if (current.column !== column) return 'none';
  return current.order === 'asc' ? 'ascending' : 'descending';
}

export interface SessionFilters {
  search: string;
  from: string;
  to: string;
  audience: string;
}

/** Whether any filter narrows the list (an empty list then says so, not that nothing is loaded). */
export function isFiltered(filters: SessionFilters): boolean {
  return filters.search.trim() !== '' || filters.from !== '' || filters.to !== '' || filters.audience !== '';
}

export const PAGE_SIZE = 50;

/** What the Infosessions view keeps in the address (`?q=google&sort=employer&order=desc&page=2&session=42`), '' or the default when not set. */
export const SESSIONS_URL = { q: '', from: '', to: '', audience: '', sort: 'date', order: 'asc', page: '1', session: '' };
export type SessionsUrl = typeof SESSIONS_URL;

const SORT_COLUMNS: readonly SortColumn[] = ['date', 'employer', 'id', 'building'];

/** The filters, sort and page (0-based) an address asks for; anything it says that makes no sense reads as the default. */
export function sessionsFromUrl(url: SessionsUrl): { filters: SessionFilters; sort: SortState; page: number } {
  const column = SORT_COLUMNS.includes(url.sort as SortColumn) ? (url.sort as SortColumn) : 'date';
  const page = /^\d{1,6}$/.test(url.page) ? Math.max(0, Number(url.page) - 1) : 0;
  return { filters: { search: url.q, from: url.from, to: url.to, audience: url.audience }, sort: { column, order: url.order === 'desc' ? 'desc' : 'asc' }, page };
}

/** The infosessions.list input for the filters, sort and page; empty filters are left out. */
export function listInput(filters: SessionFilters, sort: SortState, page: number) {
  const trimmed = (v: string) => v.trim();
  return {
    ...(trimmed(filters.search) ? { search: trimmed(filters.search) } : {}),
    ...(/^\d{4}-\d{2}-\d{2}$/.test(filters.from) ? { from: filters.from } : {}),
    ...(/^\d{4}-\d{2}-\d{2}$/.test(filters.to) ? { to: filters.to } : {}),
    ...(trimmed(filters.audience) ? { audience: trimmed(filters.audience) } : {}),
    sort: sort.column,
    order: sort.order,
    offset: Math.max(0, page) * PAGE_SIZE,
    limit: PAGE_SIZE,
  };
}

/** "51–100 of 363" */
export function pageText(offset: number, shown: number, total: number): string {
  if (total === 0) return 'no sessions';
  return `${offset + 1}–${offset + shown} of ${total}`;
}

export function sessionTime(s: Pick<SessionView, 'start_time' | 'end_time'>): string {
  if (!s.start_time && !s.end_time) return '—';
  return `${s.start_time ?? '?'}–${s.end_time ?? '?'}`;
}

export function buildingText(s: Pick<SessionView, 'building'>): string {
  return [s.building.code, s.building.room].filter(Boolean).join(' ') || '—';
}

/** A website as a link target: the data often lacks the scheme ("mattermost.org"). */
export function websiteHref(website: string | null): string | null {
  if (!website) return null;
  if (/^https?:\/\//i.test(website)) return website;
  return /^[\w.-]+\.[a-z]{2,}(\/.*)?$/i.test(website) ? `http://${website}` : null;
}

/** One line about a CSV file holding `one` a row (`session`, `building`): what serves, and what went wrong. */
export function fileSummary(file: CsvFileStatus, one: string): { tone: 'good' | 'busy' | 'bad'; text: string } {
  const name = file.file.split('/').at(-1) ?? file.file;
  if (file.error) return { tone: 'bad', text: `${name}: ${file.error.message}; ${stillServingText(file.rows, one)}` };
  const skipped = file.rejected.length > 0 ? `, ${plural(file.rejected.length, 'row')} skipped` : '';
  const warned = file.warnings.length > 0 ? `, ${plural(file.warnings.length, 'warning')}` : '';
  return { tone: file.rejected.length > 0 ? 'busy' : 'good', text: `${name}: ${plural(file.rows, 'row')}${skipped}${warned}` };
}

/** Id of the newest event of one of `types` (events newest first); changes when such an event arrives. */
export function newestEventOf(events: readonly DaemonEvent[], types: readonly string[]): string | null {
  return events.find((e) => types.includes(e.type))?.id ?? null;
}

/** What an operator may do with a key in its state. */
export function keyActions(state: ApiKeySummary['state']): Array<'ban' | 'unban' | 'revoke'> {
  if (state === 'active') return ['ban', 'revoke'];
  if (state === 'banned') return ['unban', 'revoke'];
  return [];
}

/** "12 / 1000" or "12" */
export function usageText(key: Pick<ApiKeySummary, 'requestsThisMonth' | 'monthlyLimit'>): string {
  return key.monthlyLimit === null ? String(key.requestsThisMonth) : `${key.requestsThisMonth} / ${key.monthlyLimit}`;
}

/** "1 call", "1000 calls" */
export function callsText(count: number): string {
  return plural(count, 'call');
}

/** Keys whose name or id contains `text` (any case), in `state` when one is given. */
export function filterKeys(keys: readonly ApiKeySummary[], text: string, state: string): ApiKeySummary[] {
  const wanted = text.trim().toLowerCase();
  return keys.filter((k) => (state === '' || k.state === state) && (wanted === '' || k.name.toLowerCase().includes(wanted) || k.id.toLowerCase().includes(wanted)));
}
