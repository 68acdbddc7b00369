/** What a list's filter bar offers: a search box and one choice among the list's states. */
export interface ListFilterProps {
  search: string;
  /** What the search box matches, as its placeholder: "name or origin". */
  searchHint: string;
  onSearch(text: string): void;
  /** The choice's label ("State", "Health"); its first option is "any" (''). */
  choiceLabel: string;
  choice: string;
  choices: readonly string[];
  onChoice(value: string): void;
  /** Clears both; the button shows only while something is set. */
  onClear(): void;
}

/** The filter bar of a list view: search box, one select, and Clear. */
export function ListFilter({ search, searchHint, onSearch, choiceLabel, choice, choices, onChoice, onClear }: ListFilterProps) {
  return (
    <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
      <label>
        Search <input type="search" value={search} placeholder={searchHint} onChange={(e) => onSearch(e.target.value)} />
      </label>
      <label>
        {choiceLabel}
        <select value={choice} onChange={(e) => onChoice(e.target.value)}>
          <option value="">any</option>
          {choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      {(search || choice) && (
        <button type="button" onClick={onClear}>
          Clear
        </button>
      )}
    </form>
  );
}
