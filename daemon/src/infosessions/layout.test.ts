import { describe, expect, it } from 'vitest';
import { readBuildingRows } from './buildings.js';
import { parseCsv } from '../core/csv.js';
import { LayoutError, readSessionRows } from './layout.js';

const buildings = readBuildingRows(parseCsv('code,name,latitude,longitude,map_url\nDC,William G. Davis Computer Research Centre,43.4727,-80.5421,https://uwaterloo.ca/map/DC\n')).table;
const HEADER = 'id,employer,date,start_time,end_time,description,website,building_code,building_room,audience,link,students\n';

describe('readSessionRows', () => {
  it('builds the public record: numeric id, month name in day, building from the table, audience list, nulls kept', () => {
    const { sessions, rejected } = readSessionRows(
      parseCsv(`${HEADER}3739,Mattermost Inc.,2016-01-05,11:30,13:30,,mattermost.org,dc,Corporate Lounge 1301,ENG - Computer; MATH - Computer Science,http://www.ceca.uwaterloo.ca/students/hiresessions_details.php?id=3739,Co-op Students\n`),
      buildings,
    );
    expect(rejected).toEqual([]);
    expect(sessions[0]).toEqual({
      line: 2,
      students: 'Co-op Students',
      record: {
        id: 3739,
        employer: 'Mattermost Inc.',
        date: '2016-01-05',
        day: 'January',
        start_time: '11:30',
        end_time: '13:30',
        description: null,
        website: 'mattermost.org',
        building: { code: 'DC', name: 'William G. Davis Computer Research Centre', room: 'Corporate Lounge 1301', latitude: 43.4727, longitude: -80.5421, map_url: 'https://uwaterloo.ca/map/DC' },
        audience: ['ENG - Computer', 'MATH - Computer Science'],
        link: 'http://www.ceca.uwaterloo.ca/students/hiresessions_details.php?id=3739',
      },
    });
    expect(Object.keys(sessions[0]!.record)).toEqual(['id', 'employer', 'date', 'day', 'start_time', 'end_time', 'description', 'website', 'building', 'audience', 'link']);
  });

  it('skips each bad row with its line and reason and keeps the good ones', () => {
    const csv = [
      HEADER.trimEnd(),
      '1,Good,2016-01-05,9:00,10:00,,,DC,1301,,,',
      '2,Bad date,2016-02-30,09:00,10:00,,,DC,1301,,,',
      '3,Bad time,2016-01-05,25:00,10:00,,,DC,1301,,,',
      '4,Too few,2016-01-05',
      '1,Duplicate,2016-01-05,09:00,10:00,,,DC,1301,,,',
      '5,Backwards,2016-01-05,11:00,10:00,,,DC,1301,,,',
      '6,Bad link,2016-01-05,09:00,10:00,,,DC,1301,,ftp://x,',
      'abc,Text id,,,,,,XYZ,,,,',
    ].join('\n');
    const { sessions, rejected, warnings } = readSessionRows(parseCsv(csv), buildings);
    expect(sessions.map((s) => s.record.id)).toEqual([1, 'abc']);
    expect(sessions[0]?.record.start_time).toBe('09:00');
    expect(rejected).toEqual([
      { line: 3, reason: 'date "2016-02-30" is not a calendar date' },
      { line: 4, reason: 'start_time "25:00" must be hh:mm, 24-hour (e.g. 17:30)' },
      { line: 5, reason: 'has 3 fields, the header has 12' },
      { line: 6, reason: 'id 1 is already used on line 2' },
      { line: 7, reason: 'end_time 10:00 is before start_time 11:00' },
      { line: 8, reason: 'link "ftp://x" must be an http(s) URL' },
    ]);
    expect(warnings).toEqual([{ line: 9, reason: 'building_code XYZ is not in the buildings table; name and coordinates are null' }]);
    expect(sessions[1]?.record.building).toEqual({ code: 'XYZ', name: null, room: null, latitude: null, longitude: null, map_url: null });
  });

  it('refuses a header with unknown or missing columns as a whole', () => {
    expect(() => readSessionRows(parseCsv('id,employer,buildng_code\n'), buildings)).toThrow(LayoutError);
    expect(() => readSessionRows(parseCsv('id,employer,buildng_code\n'), buildings)).toThrow(/unknown column 'buildng_code'/);
    expect(() => readSessionRows(parseCsv('id,employer\n'), buildings)).toThrow(/missing columns date, start_time, end_time, building_code, building_room/);
    expect(() => readSessionRows([], buildings)).toThrow(/empty/);
  });
});
