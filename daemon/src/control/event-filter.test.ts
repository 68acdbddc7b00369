import { describe, expect, it } from 'vitest';
import type { DaemonEvent } from './client-types.js';
import { describeEventFilter, detailsText, eventFilterFromQuery, eventFilterToQuery, eventTypesIn, filterEvents, isFiltered, nextLevelStep, nextType, NO_EVENT_FILTER, originText } from './event-filter.js';

const event = (id: number, level: DaemonEvent['level'], type: DaemonEvent['type']): DaemonEvent => ({ id: `b:${id}`, type, level, at: '2026-01-01T10:00:00.000Z', message: `m${id}` });
const EVENTS = [event(1, 'info', 'job.state'), event(2, 'warn', 'log'), event(3, 'error', 'delivery.state'), event(4, 'warn', 'delivery.state')];
const ids = (events: DaemonEvent[]) => events.map((e) => e.id);

describe('event filter shared by both consoles', () => {
  it('keeps every event without a filter, and those of the chosen levels and type with one', () => {
    expect(ids(filterEvents(EVENTS, NO_EVENT_FILTER))).toEqual(['b:1', 'b:2', 'b:3', 'b:4']);
    expect(ids(filterEvents(EVENTS, { levels: ['warn', 'error'], type: null }))).toEqual(['b:2', 'b:3', 'b:4']);
    expect(ids(filterEvents(EVENTS, { levels: ['warn'], type: 'delivery.state' }))).toEqual(['b:4']);
    expect(ids(filterEvents(EVENTS, { levels: [], type: 'job.state' }))).toEqual(['b:1']);
    expect(isFiltered({ levels: ['info', 'warn', 'error'], type: null })).toBe(false);
    expect(isFiltered({ levels: ['info'], type: null })).toBe(true);
  });

  it('reads and writes the address query, naming what it ignored', () => {
    const { filter, problems } = eventFilterFromQuery(new URLSearchParams('level=error,WARN,loud&type=delivery.state'));
    expect(filter).toEqual({ levels: ['warn', 'error'], type: 'delivery.state' });
    expect(problems).toEqual(['unknown level "loud" in the address (levels: info, warn, error); it is ignored']);
    expect(eventFilterToQuery(filter)).toEqual([['level', 'warn,error'], ['type', 'delivery.state']]);
    expect(eventFilterFromQuery(new URLSearchParams('level=info,warn,error')).filter).toEqual(NO_EVENT_FILTER);
    expect(eventFilterToQuery(NO_EVENT_FILTER)).toEqual([]);
  });

  it('steps levels and types the way the terminal keys do, and says what it shows', () => {
    expect(nextLevelStep([])).toEqual(['warn', 'error']);
    expect(nextLevelStep(['error', 'warn'])).toEqual(['error']);
    expect(nextLevelStep(['info'])).toEqual([]);
    const types = eventTypesIn(EVENTS, 'cds.nack');
    expect(types).toEqual(['cds.nack', 'delivery.state', 'job.state', 'log']);
    expect(nextType(null, types)).toBe('cds.nack');
    expect(nextType('job.state', types)).toBe('log');
    expect(nextType('log', types)).toBeNull();
    expect(describeEventFilter({ levels: ['error', 'warn'], type: 'log' })).toBe('level warn, error · type log');
    expect(describeEventFilter(NO_EVENT_FILTER)).toBe('all levels · all types');
  });

  it('writes details as key=value, quoting values with spaces, and names the origin process', () => {
    expect(detailsText({ delivery: 'd-1', attempt: 2, terminal: false, status: null, error: 'receiver answered HTTP 503' })).toBe('delivery=d-1 attempt=2 terminal=false status=null error="receiver answered HTTP 503"');
    expect(originText({ bootId: 'x', mode: 'callback-worker', pid: 42, host: 'h' })).toBe('callback-worker pid 42');
  });
});
