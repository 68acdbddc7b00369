import { z } from 'zod';
import type { SessionPage, SessionView } from './control-types.js';
import type { SessionEntry } from './record.js';

export const SESSION_SORTS = ['date', 'employer', 'id', 'building'] as const;

/** Input of infosessions.list. */
export const sessionQuerySchema = z.object({
  /** Words that must all appear in the employer or description (case-insensitive). */
  search: z.string().max(200).optional(),
  /** yyyy-mm-dd, inclusive. */
  from: z.iso.date().optional(),
  to: z.iso.date().optional(),
  /** Sessions whose audience includes this value (exact, case-insensitive). */
  audience: z.string().max(200).optional(),
  sort: z.enum(SESSION_SORTS).default('date'),
  order: z.enum(['asc', 'desc']).default('asc'),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(1000).default(100),
});
export type SessionQuery = z.input<typeof sessionQuerySchema>;

export function toSessionView(entry: SessionEntry): SessionView {
  return { ...entry.record, building: { ...entry.record.building }, audience: entry.record.audience ? [...entry.record.audience] : null, students: entry.students, line: entry.line };
}

const sortKey: Record<(typeof SESSION_SORTS)[number], (e: SessionEntry) => string> = {
  // Date then start time, so a day's sessions come in order.
  date: (e) => `${e.record.date ?? '9999-99-99'} ${e.record.start_time ?? '99:99'}`,
  employer: (e) => (e.record.employer ?? '').toLowerCase(),
  id: (e) => (typeof e.record.id === 'number' ? String(e.record.id).padStart(16, '0') : (e.record.id ?? '')),
  building: (e) => `${e.record.building.code ?? '~'} ${e.record.building.room ?? ''}`.toLowerCase(),
};

/** Filters, sorts and pages the loaded sessions; ties keep file order, so paging is stable. */
export function querySessions(entries: readonly SessionEntry[], input: SessionQuery): SessionPage {
  const q = sessionQuerySchema.parse(input);
  const words = (q.search ?? '').toLowerCase().split(/\s+/).filter((w) => w !== '');
  const audience = q.audience?.trim().toLowerCase() || null;
  const matching = entries.filter((e) => {
    const r = e.record;
    if (q.from && (r.date === null || r.date < q.from)) return false;
    if (q.to && (r.date === null || r.date > q.to)) return false;
    if (audience && !(r.audience ?? []).some((a) => a.toLowerCase() === audience)) return false;
    if (words.length > 0) {
      const haystack = `${r.employer ?? ''}\n${r.description ?? ''}`.toLowerCase();
      if (!words.every((w) => haystack.includes(w))) return false;
    }
    return true;
  });
  const key = sortKey[q.sort];
  const sign = q.order === 'asc' ? 1 : -1;
  const sorted = matching
    .map((e, i) => ({ e, i, k: key(e) }))
    .sort((a, b) => (a.k < b.k ? -sign : a.k > b.k ? sign : a.i - b.i))
    .map((x) => x.e);
  const audiences = [...new Set(entries.flatMap((e) => e.record.audience ?? []))].sort((a, b) => a.localeCompare(b));
  return { total: sorted.length, offset: q.offset, items: sorted.slice(q.offset, q.offset + q.limit).map(toSessionView), audiences };
}
