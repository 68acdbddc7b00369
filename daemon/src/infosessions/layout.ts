import { z } from 'zod';
import type { CsvRow } from '../core/csv.js';
import { isCalendarDate, monthName, type Building, type RowProblem, type SessionEntry } from './record.js';
import { PorticoError } from '../core/errors.js';

/** Columns of our CSV layout, in the order the importer writes them (docs/infosessions.md). */
export const SESSION_COLUMNS = [
  'id', 'employer', 'date', 'start_time', 'end_time', 'description', 'website',
  'building_code', 'building_room', 'audience', 'link', 'students',
] as const;
export type SessionColumn = (typeof SESSION_COLUMNS)[number];
const REQUIRED_COLUMNS: readonly SessionColumn[] = ['id', 'employer', 'date', 'start_time', 'end_time', 'building_code', 'building_room'];

/** Building facts from buildings.csv, by upper-case code. */
export type BuildingTable = ReadonlyMap<string, Omit<Building, 'room'>>;

/** The header is wrong: the whole file is refused (the previous data keeps serving). */
export class LayoutError extends PorticoError {
  override name = 'LayoutError';
  constructor(message: string) {
    super('csv_layout', message, { category: 'invalid' });
  }
}

const text = z.string().transform((v) => (v.trim() === '' ? null : v.trim()));
const time = text.pipe(
  z
    .string()
    .regex(/^([01]?\d|2[0-3]):[0-5]\d$/, 'must be hh:mm, 24-hour (e.g. 17:30)')
    .transform((v) => v.padStart(5, '0'))
    .nullable(),
);

/** A row of our layout as cells; zod turns it into typed values or says which column is wrong. */
const sessionRowSchema = z.object({
  id: text.transform((v) => (v !== null && /^\d{1,15}$/.test(v) ? Number(v) : v)),
  employer: text,
  date: text.pipe(
    z
      .string()
      .regex(/^\d{4}[-/]\d{2}[-/]\d{2}$/, 'must be yyyy-mm-dd (e.g. 2016-01-05)')
      .transform((v) => v.replaceAll('/', '-'))
      .refine(isCalendarDate, 'is not a calendar date')
      .nullable(),
  ),
  start_time: time,
  end_time: time,
  description: text,
  website: text,
  building_code: text.transform((v) => v?.toUpperCase() ?? null),
  building_room: text,
  audience: text.transform((v) => (v === null ? null : v.split(';').map((a) => a.trim()).filter((a) => a !== ''))),
  link: text.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).nullable()),
  students: text,
});

export interface LoadedSessions {
  sessions: SessionEntry[];
  rejected: RowProblem[];
  warnings: RowProblem[];
}

/** Turns parsed CSV rows (header first) into sessions; bad rows are reported and skipped. */
export function readSessionRows(rows: readonly CsvRow[], buildings: BuildingTable): LoadedSessions {
  const [header, ...body] = rows;
  if (!header) throw new LayoutError('the file is empty; the first line must be the header (see docs/infosessions.md)');
  const columns = header.fields.map((f) => f.trim().toLowerCase());
  const unknown = columns.filter((c) => !(SESSION_COLUMNS as readonly string[]).includes(c));
  if (unknown.length > 0) throw new LayoutError(`line ${header.line}: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `'${c}'`).join(', ')}; the columns are ${SESSION_COLUMNS.join(', ')}`);
  const missing = REQUIRED_COLUMNS.filter((c) => !columns.includes(c));
  if (missing.length > 0) throw new LayoutError(`line ${header.line}: missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  const dup = columns.find((c, i) => columns.indexOf(c) !== i);
  if (dup) throw new LayoutError(`line ${header.line}: column '${dup}' appears twice`);

  const sessions: SessionEntry[] = [];
  const rejected: RowProblem[] = [];
  const warnings: RowProblem[] = [];
  const seenIds = new Map<string, number>();
  for (const row of body) {
    if (row.fields.length !== columns.length) {
      rejected.push({ line: row.line, reason: `has ${row.fields.length} fields, the header has ${columns.length}` });
      continue;
    }
    const cells: Record<string, string> = Object.fromEntries(SESSION_COLUMNS.map((c) => [c, '']));
    columns.forEach((c, i) => (cells[c] = row.fields[i] ?? ''));
    const parsed = sessionRowSchema.safeParse(cells);
    if (!parsed.success) {
      rejected.push({ line: row.line, reason: parsed.error.issues.map((i) => `${String(i.path[0])} ${JSON.stringify(cells[String(i.path[0])]?.trim() ?? '')} ${i.message}`).join('; ') });
      continue;
    }
    const v = parsed.data;
    if (v.start_time && v.end_time && v.end_time < v.start_time) {
      rejected.push({ line: row.line, reason: `end_time ${v.end_time} is before start_time ${v.start_time}` });
      continue;
    }
    if (v.id !== null) {
      const first = seenIds.get(String(v.id));
      if (first !== undefined) {
        rejected.push({ line: row.line, reason: `id ${v.id} is already used on line ${first}` });
        continue;
      }
      seenIds.set(String(v.id), row.line);
    }
    const known = v.building_code ? buildings.get(v.building_code) : undefined;
    if (v.building_code && !known) warnings.push({ line: row.line, reason: `building_code ${v.building_code} is not in the buildings table; name and coordinates are null` });
    sessions.push({
      line: row.line,
      students: v.students,
      record: {
        id: v.id,
        employer: v.employer,
        date: v.date,
        day: v.date ? monthName(v.date) : null,
        start_time: v.start_time,
        end_time: v.end_time,
        description: v.description,
        website: v.website,
        building: {
          code: v.building_code,
          name: known?.name ?? null,
          room: v.building_room,
          latitude: known?.latitude ?? null,
          longitude: known?.longitude ?? null,
          map_url: known?.map_url ?? null,
        },
        audience: v.audience,
        link: v.link,
      },
    });
  }
  return { sessions, rejected, warnings };
}
