// How both consoles filter and show events: by level and type, details as `key=value`, the
// process an event came from. Plain TypeScript with no Node or DOM types (the web imports it).
import { EVENT_LEVELS, type DaemonEvent, type EventDetails, type EventLevel, type EventOrigin } from './client-types.js';

export interface EventFilter {
  /** Levels shown; empty shows every level. */
  levels: readonly EventLevel[];
  /** The one type shown (e.g. `delivery.state`); null shows every type. */
  type: string | null;
}

export const NO_EVENT_FILTER: EventFilter = { levels: [], type: null };

/** What the terminal's `l` key steps through: everything, then the levels an operator looks for first. */
export const LEVEL_STEPS: readonly (readonly EventLevel[])[] = [[], ['warn', 'error'], ['error'], ['warn'], ['info']];

export function matchesEventFilter(event: DaemonEvent, { levels, type }: EventFilter): boolean {
  return (levels.length === 0 || levels.includes(event.level)) && (type === null || event.type === type);
}

export function filterEvents<E extends DaemonEvent>(events: readonly E[], filter: EventFilter): E[] {
  return isFiltered(filter) ? events.filter((e) => matchesEventFilter(e, filter)) : [...events];
}

/** Whether the filter leaves anything out (every level ticked is no level filter). */
export function isFiltered(filter: EventFilter): boolean {
  return (filter.levels.length > 0 && filter.levels.length < EVENT_LEVELS.length) || filter.type !== null;
}

/** The levels after `levels` in LEVEL_STEPS (a set not in the list starts it over). */
export function nextLevelStep(levels: readonly EventLevel[]): readonly EventLevel[] {
  const at = LEVEL_STEPS.findIndex((step) => sameLevels(step, levels));
  return LEVEL_STEPS[(at + 1) % LEVEL_STEPS.length]!;
}

/** The types present in `events`, sorted, plus `keep` (the type filtered on, even when none is left). */
export function eventTypesIn(events: readonly DaemonEvent[], keep: string | null = null): string[] {
  const types = new Set(events.map((e) => e.type as string));
  if (keep !== null) types.add(keep);
  return [...types].sort();
}

/** The type after `type` among `types`: null (all) → first → … → last → null. */
export function nextType(type: string | null, types: readonly string[]): string | null {
  if (types.length === 0) return null;
  if (type === null) return types[0]!;
  const at = types.indexOf(type);
  return at === -1 || at === types.length - 1 ? null : types[at + 1]!;
}

/** `level warn, error · type delivery.state`, `all levels · all types`. */
export function describeEventFilter({ levels, type }: EventFilter): string {
  return `${levels.length === 0 ? 'all levels' : `level ${orderedLevels(levels).join(', ')}`} · ${type === null ? 'all types' : `type ${type}`}`;
}

/**
 * The filter of a URL query: `level=warn,error&type=delivery.state`. Unknown levels are left
 * out and named in `problems`, so a mistyped link says what it ignored.
 */
export function eventFilterFromQuery(query: { get(name: string): string | null }): { filter: EventFilter; problems: string[] } {
  const problems: string[] = [];
  const levels: EventLevel[] = [];
  for (const part of (query.get('level') ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    if ((EVENT_LEVELS as readonly string[]).includes(part)) {
      if (!levels.includes(part as EventLevel)) levels.push(part as EventLevel);
    } else {
      problems.push(`unknown level "${part}" in the address (levels: ${EVENT_LEVELS.join(', ')}); it is ignored`);
    }
  }
  const type = query.get('type')?.trim() || null;
  return { filter: { levels: levels.length === EVENT_LEVELS.length ? [] : orderedLevels(levels), type }, problems };
}

/** The filter as query parameters (empty for no filter), the inverse of eventFilterFromQuery. */
export function eventFilterToQuery({ levels, type }: EventFilter): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (levels.length > 0 && levels.length < EVENT_LEVELS.length) out.push(['level', orderedLevels(levels).join(',')]);
  if (type !== null) out.push(['type', type]);
  return out;
}

/** `[delivery, d-1], [attempt, 2], …` in the order the daemon gave them, values as text. */
export function detailEntries(details: EventDetails | undefined): Array<[string, string]> {
  return Object.entries(details ?? {}).map(([key, value]) => [key, value === null ? 'null' : String(value)]);
}

/** `delivery=d-1 attempt=2 error="receiver answered HTTP 503"`: values with spaces or quotes quoted. */
export function detailsText(details: EventDetails | undefined): string {
  return detailEntries(details)
    .map(([key, value]) => `${key}=${/[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value}`)
    .join(' ');
}

/** `callback-worker pid 4242`: the process another event came from. */
export function originText(origin: EventOrigin): string {
  return `${origin.mode} pid ${origin.pid}`;
}

function orderedLevels(levels: readonly EventLevel[]): EventLevel[] {
  return EVENT_LEVELS.filter((l) => levels.includes(l));
}

function sameLevels(a: readonly EventLevel[], b: readonly EventLevel[]): boolean {
  return a.length === b.length && a.every((l) => b.includes(l));
}
