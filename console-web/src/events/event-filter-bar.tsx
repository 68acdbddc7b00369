import { EVENT_LEVELS, type EventLevel } from '@portico/daemon/control/client-types';
import { isFiltered, NO_EVENT_FILTER, type EventFilter } from '@portico/daemon/control/event-filter';
import { levelLabel } from '../status/labels';

interface Props {
  filter: EventFilter;
  /** The types to offer: those in the list, and the one filtered on. */
  types: readonly string[];
  onChange(next: EventFilter): void;
}

/** Level boxes (none ticked shows every level) and a type menu, above the events list. */
export function EventFilterBar({ filter, types, onChange }: Props) {
  const toggle = (level: EventLevel, on: boolean) => {
    onChange({ ...filter, levels: on ? [...filter.levels, level] : filter.levels.filter((l) => l !== level) });
  };
  return (
    <form className="event-filter" aria-label="Filter events" onSubmit={(e) => e.preventDefault()}>
      <fieldset>
        <legend>Level</legend>
        {EVENT_LEVELS.map((level) => {
          const label = levelLabel(level);
          return (
            <label key={level} className="event-filter-level">
              <input type="checkbox" checked={filter.levels.includes(level)} onChange={(e) => toggle(level, e.currentTarget.checked)} />
              <span aria-hidden="true">{label.glyph}</span> {label.word}
            </label>
          );
        })}
      </fieldset>
      <label className="event-filter-type">
        Type
        <select value={filter.type ?? ''} onChange={(e) => onChange({ ...filter, type: e.currentTarget.value || null })}>
          <option value="">All types</option>
          {types.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </label>
      <button type="button" className="secondary" disabled={!isFiltered(filter)} onClick={() => onChange(NO_EVENT_FILTER)}>
        Clear filters
      </button>
    </form>
  );
}
