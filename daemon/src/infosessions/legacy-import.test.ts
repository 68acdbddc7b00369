import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../core/csv.js';
import { SESSION_COLUMNS, readSessionRows } from './layout.js';
import { decodeLegacy, formatSessions, importLegacy, legacyDate, legacyTime } from './legacy-import.js';
import { mapLegacyLocation } from './legacy-location.js';

const HEADER = 'id,employer,date,start_time,end_time,location,website,audience,programs,description\r\n';

describe('legacy import', () => {
  it.each([
    ['7:30 PM', '19:30'],
    ['09:30 AM', '09:30'],
    ['12:00 PM', '12:00'],
    ['12:15 AM', '00:15'],
    ['13:00 PM', null],
    ['noon', null],
  ])('time %s → %s', (text, expected) => expect(legacyTime(text)).toBe(expected));

  it.each([
    ['January 7, 2015', '2015-01-07'],
    ['September 5, 2013', '2013-09-05'],
    ['February 30, 2014', null],
    ['2014-01-07', null],
  ])('date %s → %s', (text, expected) => expect(legacyDate(text)).toBe(expected));

  it.each([
    ['TC 2218 ', 'TC', '2218'],
    ['TC2218', 'TC', '2218'],
    ['Tatham Centre - 2218', 'TC', '2218'],
    ['SCH - Laurel Room', 'SCH', 'Laurel Room'],
    ['Laurel Room - SCH', 'SCH', 'Laurel Room'],
    ['Laruel Room', 'SCH', 'Laurel Room'],
    ['Festival Room - South Campus Hall', 'SCH', 'Festival Room'],
    ['Bomb shelter SLC', 'SLC', 'Bombshelter Pub'],
    ['Fed Hall- Multi Purpose Room A', 'FED', 'Multi Purpose Room A'],
    ['Quantum Building - lower atrium', 'QNC', 'lower atrium'],
    ['Engineering 5 - Room 3102 (LiveLink)', 'E5', 'Room 3102 (LiveLink)'],
    ['Sedra Student Design Centre, E5-1001', 'E5', '1001 (Sedra Student Design Centre)'],
    ['TBD', null, 'TBD'],
    ['Waterloo Inn', null, 'Waterloo Inn'],
  ])('location %j → %s %s', (text, code, room) => expect(mapLegacyLocation(text)).toMatchObject({ code, room }));

  it('decodes Windows-1252 when the bytes are not UTF-8 (0x92 is a right quote)', () => {
    expect(decodeLegacy(Uint8Array.from([0x77, 0x65, 0x92, 0x72, 0x65]))).toEqual({ text: 'we\u2019re', encoding: 'windows-1252' });
    expect(decodeLegacy(new TextEncoder().encode('we\u2019re')).encoding).toBe('utf-8');
  });

  it('turns a legacy row into our layout: backslash escapes, programs as audience, link from the id', () => {
    const csv = `${HEADER}2399,Big Viking Games,"May 6, 2014",7:30 PM,9:00 PM,Bombshelter,www.bigvikinggames.com,Co-op and Graduating Students,"ENG - Computer, MATH - Computer Science","Canada\\'s leading studio. "\r\n`;
    const { rows, notes } = importLegacy(new TextEncoder().encode(csv));
    expect(notes).toEqual([]);
    expect(Object.fromEntries(SESSION_COLUMNS.map((c, i) => [c, rows[0]?.[i]]))).toEqual({
      id: '2399',
      employer: 'Big Viking Games',
      date: '2014-05-06',
      start_time: '19:30',
      end_time: '21:00',
      description: "Canada's leading studio.",
      website: 'www.bigvikinggames.com',
      building_code: 'SLC',
      building_room: 'Bombshelter Pub',
      audience: 'ENG - Computer;MATH - Computer Science',
      link: 'http://www.ceca.uwaterloo.ca/students/hiresessions_details.php?id=2399',
      students: 'Co-op and Graduating Students',
    });
  });

  it('imports all four real files without losing a record, and the result loads without a rejected row', () => {
    const terms = { 1139: 117, 1141: 107, 1145: 48, 1151: 91 };
    const all: string[][] = [];
    for (const [term, count] of Object.entries(terms)) {
      const bytes = readFileSync(new URL(`../../../config/data/uwaterloo-legacy/uWaterloo-Datasets-EmployerInfoSessions-${term}infosessions.csv`, import.meta.url));
      const imported = importLegacy(bytes);
      expect(imported.rows, term).toHaveLength(count);
      expect(imported.encoding).toBe(term === '1139' ? 'windows-1252' : 'utf-8');
      expect(imported.notes.every((n) => /names no campus building|no location/.test(n.reason))).toBe(true);
      all.push(...imported.rows);
    }
    const loaded = readSessionRows(parseCsv(formatSessions(all)), new Map());
    expect(loaded.rejected).toEqual([]);
    expect(loaded.sessions).toHaveLength(363);
    expect(loaded.sessions.some((s) => s.record.description?.includes('we\u2019re going'))).toBe(true);
    expect(loaded.sessions.some((s) => s.record.description?.includes("\\'"))).toBe(false);
  });
});
