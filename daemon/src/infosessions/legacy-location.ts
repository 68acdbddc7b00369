/** Where a legacy `location` text points: a building code (or null) and the room text. */
export interface MappedLocation {
  code: string | null;
  room: string | null;
  /** Set when the text could not be tied to a campus building (kept whole as the room). */
  note: string | null;
}

// Rooms named without their building in the legacy data, and the building they are in.
const NAMED_ROOMS: ReadonlyArray<[RegExp, string, string]> = [
  [/bomb\s*e?r?\s*shelter|bomber/i, 'SLC', 'Bombshelter Pub'],
  [/la(?:u|ru)r?e?l\s+room/i, 'SCH', 'Laurel Room'],
  [/^(?:sch\s*-?\s*)?festival(?:\s+room)?(?:\s*-\s*(?:sch|south campus hall))?$/i, 'SCH', 'Festival Room'],
  [/sedra student design centre/i, 'E5', 'Sedra Student Design Centre'],
];

// Building names and codes that start a legacy location ("Fed Hall - Room 2", "TC2218").
const BUILDING_PREFIXES: ReadonlyArray<[RegExp, string]> = [
  [/^(?:tatham centre|tc)(?![a-z])/i, 'TC'],
  [/^(?:davis centre|dc)(?![a-z])/i, 'DC'],
  [/^(?:south campus hall|sch)(?![a-z])/i, 'SCH'],
  [/^(?:feds? hall|fed)(?![a-z])/i, 'FED'],
  [/^(?:quantum building|qnc)(?![a-z])/i, 'QNC'],
  [/^(?:engineering 5|e5)(?![a-z0-9])/i, 'E5'],
  [/^(?:university club|uc)(?![a-z])/i, 'UC'],
  [/^(?:student life centre|slc)(?![a-z])/i, 'SLC'],
  [/^m3(?![a-z0-9])/i, 'M3'],
  [/^al(?![a-z])/i, 'AL'],
];

/**
 * Maps a legacy location such as `TC 2218`, `SCH - Laurel Room`, `Laurel Room - SCH` or
 * `Bombshelter` to a building code and room. Text that names no campus building (`TBD`,
 * `Waterloo Inn`) keeps a null code and stays whole as the room, with a note saying so.
 */
export function mapLegacyLocation(raw: string): MappedLocation {
  const text = raw.trim().replace(/\s+/g, ' ');
  if (text === '') return { code: null, room: null, note: 'no location' };
  const sedra = /sedra student design centre,?\s*e5\s*-\s*(\S+)/i.exec(text);
  if (sedra) return { code: 'E5', room: `${sedra[1]} (Sedra Student Design Centre)`, note: null };
  for (const [pattern, code, room] of NAMED_ROOMS) {
    if (pattern.test(text)) return { code, room, note: null };
  }
  for (const [pattern, code] of BUILDING_PREFIXES) {
    const match = pattern.exec(text);
    if (!match) continue;
    const room = text.slice(match[0].length).replace(/^[\s\-–,]+/, '').trim();
    return { code, room: room === '' ? null : room, note: null };
  }
  return { code: null, room: text, note: `location ${JSON.stringify(text)} names no campus building; kept as the room with a null building code` };
}
