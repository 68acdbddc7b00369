import { z } from 'zod';
import { CsvSyntaxError, formatCsv, parseCsv } from '../core/csv.js';
import { SESSION_COLUMNS } from './layout.js';
import { mapLegacyLocation } from './legacy-location.js';
import { MONTH_NAMES, isCalendarDate, type RowProblem } from './record.js';
import { PorticoError } from '../core/errors.js';

/** Columns of the legacy uWaterloo Datasets export (EmployerInfoSessions/*.csv). */
export const LEGACY_COLUMNS = ['id', 'employer', 'date', 'start_time', 'end_time', 'location', 'website', 'audience', 'programs', 'description'] as const;

/** The co-op office's page for a session, as the v2 API linked it. */
export const SESSION_LINK = (id: string): string => `http://www.ceca.uwaterloo.ca/students/hiresessions_details.php?id=${encodeURIComponent(id)}`;

export interface ImportedFile {
  /** Rows in our layout (SESSION_COLUMNS order), one per legacy record. */
  rows: string[][];
  /** What could not be mapped (the record is still written, the value left empty or kept as text). */
  notes: RowProblem[];
  encoding: 'utf-8' | 'windows-1252';
}

/** A legacy file that cannot be read as CSV at all. */
export class LegacyImportError extends PorticoError {
  override name = 'LegacyImportError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('legacy_import', message, { ...options, category: 'invalid' });
  }
}

/** UTF-8 when the bytes are valid UTF-8, else Windows-1252 (one of the real files is). */
export function decodeLegacy(bytes: Uint8Array): { text: string; encoding: ImportedFile['encoding'] } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    let text = '';
    for (const byte of bytes) text += byte >= 0x80 && byte < 0xa0 ? CP1252_80_9F[byte - 0x80]! : String.fromCharCode(byte);
    return { text, encoding: 'windows-1252' };
  }
}

// Node's TextDecoder decodes 'windows-1252' as ISO-8859-1, turning 0x92 into U+0092 instead
// of a right quote, so the 0x80-0x9F block is mapped here (undefined bytes stay as C1 controls).
const CP1252_80_9F = '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';

const legacyRow = z.object(Object.fromEntries(LEGACY_COLUMNS.map((c) => [c, z.string().transform((v) => v.trim())])) as Record<(typeof LEGACY_COLUMNS)[number], z.ZodPipe<z.ZodString, z.ZodTransform<string, string>>>);

/** "January 7, 2015" → "2015-01-07"; null when it is not such a date. */
export function legacyDate(text: string): string | null {
  const m = /^([A-Za-z]+)\.? (\d{1,2}),? (\d{4})$/.exec(text.trim());
  if (!m) return null;
  const month = MONTH_NAMES.findIndex((name) => name.toLowerCase().startsWith(m[1]!.toLowerCase()) && m[1]!.length >= 3);
  if (month < 0) return null;
  const iso = `${m[3]}-${String(month + 1).padStart(2, '0')}-${m[2]!.padStart(2, '0')}`;
  return isCalendarDate(iso) ? iso : null;
}

/** "7:30 PM" → "19:30", "12:00 AM" → "00:00"; null when it is not a 12-hour time. */
export function legacyTime(text: string): string | null {
  const m = /^(\d{1,2}):([0-5]\d)\s*([AaPp])\.?[Mm]\.?$/.exec(text.trim());
  if (!m) return null;
  const hour = Number(m[1]);
  if (hour < 1 || hour > 12) return null;
  const h24 = (hour % 12) + (m[3]!.toLowerCase() === 'p' ? 12 : 0);
  return `${String(h24).padStart(2, '0')}:${m[2]}`;
}

/** Converts one legacy file's bytes to rows of our layout. */
export function importLegacy(bytes: Uint8Array): ImportedFile {
  const { text, encoding } = decodeLegacy(bytes);
  let csv;
  try {
    csv = parseCsv(text, { backslashEscapes: true });
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw new LegacyImportError(error.message);
    throw error;
  }
  const [header, ...body] = csv;
  const columns = header?.fields.map((f) => f.trim().toLowerCase()) ?? [];
  if (LEGACY_COLUMNS.some((c) => !columns.includes(c))) {
    throw new LegacyImportError(`line 1: not the legacy layout; expected the columns ${LEGACY_COLUMNS.join(',')}`);
  }
  const rows: string[][] = [];
  const notes: RowProblem[] = [];
  for (const row of body) {
    const note = (reason: string): void => void notes.push({ line: row.line, reason });
    if (row.fields.length !== columns.length) note(`has ${row.fields.length} fields, the header has ${columns.length}; missing fields are empty, extra ones dropped`);
    const v = legacyRow.parse(Object.fromEntries(LEGACY_COLUMNS.map((c) => [c, row.fields[columns.indexOf(c)] ?? ''])));
    const date = legacyDate(v.date);
    if (date === null && v.date !== '') note(`date ${JSON.stringify(v.date)} is not a date like "January 7, 2015"; left empty`);
    const [start, end] = [v.start_time, v.end_time].map((t, i) => {
      const time = legacyTime(t);
      if (time === null && t !== '') note(`${i === 0 ? 'start_time' : 'end_time'} ${JSON.stringify(t)} is not a time like "11:30 AM"; left empty`);
      return time;
    }) as [string | null, string | null];
    if (start && end && end < start) note(`end_time ${end} is before start_time ${start}; the loader will skip this row until it is fixed`);
    const location = mapLegacyLocation(v.location);
    if (location.note) note(location.note);
    const audience = v.programs.split(',').map((p) => p.trim()).filter((p) => p !== '');
    const cells: Record<(typeof SESSION_COLUMNS)[number], string> = {
      id: v.id,
      employer: v.employer,
      date: date ?? '',
      start_time: start ?? '',
      end_time: end ?? '',
      description: v.description,
      website: v.website,
      building_code: location.code ?? '',
      building_room: location.room ?? '',
      audience: audience.join(';'),
      link: /^\d+$/.test(v.id) ? SESSION_LINK(v.id) : '',
      students: v.audience,
    };
    rows.push(SESSION_COLUMNS.map((c) => cells[c]));
  }
  return { rows, notes, encoding };
}

/** Our layout's CSV text for imported rows (header first, CRLF line ends). */
export function formatSessions(rows: readonly (readonly string[])[]): string {
  return formatCsv([[...SESSION_COLUMNS], ...rows]);
}
