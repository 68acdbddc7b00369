import { z } from 'zod';
import type { CsvRow } from '../core/csv.js';
import { LayoutError, type BuildingTable } from './layout.js';
import type { Building, RowProblem } from './record.js';

/** Columns of config/data/buildings.csv. */
export const BUILDING_COLUMNS = ['code', 'name', 'latitude', 'longitude', 'map_url'] as const;

const text = z.string().transform((v) => (v.trim() === '' ? null : v.trim()));
const coordinate = (min: number, max: number) =>
  text.pipe(
    z
      .string()
      .regex(/^-?\d{1,3}(\.\d+)?$/, 'must be a decimal number')
      .transform(Number)
      .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`)
      .nullable(),
  );

const buildingRowSchema = z.object({
  code: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9]{1,8}$/, 'must be 1 to 8 letters or digits')
    .transform((c) => c.toUpperCase()),
  name: text,
  latitude: coordinate(-90, 90),
  longitude: coordinate(-180, 180),
  map_url: text.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).nullable()),
});

export interface LoadedBuildings {
  table: Map<string, Omit<Building, 'room'>>;
  rejected: RowProblem[];
}

/** buildings.csv rows (header first) into a table by code; bad rows are reported and skipped. */
export function readBuildingRows(rows: readonly CsvRow[]): LoadedBuildings {
  const [header, ...body] = rows;
  if (!header) throw new LayoutError('the buildings file is empty; the first line must be the header code,name,latitude,longitude,map_url');
  const columns = header.fields.map((f) => f.trim().toLowerCase());
  const missing = BUILDING_COLUMNS.filter((c) => !columns.includes(c));
  if (missing.length > 0) throw new LayoutError(`line ${header.line}: missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  const table = new Map<string, Omit<Building, 'room'>>();
  const rejected: RowProblem[] = [];
  for (const row of body) {
    if (row.fields.length !== columns.length) {
      rejected.push({ line: row.line, reason: `has ${row.fields.length} fields, the header has ${columns.length}` });
      continue;
    }
    const cells = Object.fromEntries(columns.map((c, i) => [c, row.fields[i] ?? '']));
    const parsed = buildingRowSchema.safeParse(cells);
    if (!parsed.success) {
      rejected.push({ line: row.line, reason: parsed.error.issues.map((i) => `${String(i.path[0])} ${i.message}`).join('; ') });
      continue;
    }
    const b = parsed.data;
    if (table.has(b.code)) {
      rejected.push({ line: row.line, reason: `code ${b.code} appears twice` });
      continue;
    }
    table.set(b.code, { code: b.code, name: b.name, latitude: b.latitude, longitude: b.longitude, map_url: b.map_url });
  }
  return { table, rejected };
}

export const EMPTY_BUILDINGS: BuildingTable = new Map();
