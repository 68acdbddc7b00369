/** A labelled "Status" select with an "all" choice, for list filters. */
export function StatusSelect<S extends string>({ value, statuses, onChange }: { value: S | ''; statuses: readonly S[]; onChange: (status: S | '') => void }) {
  return (
    <label>
      Status{' '}
      <select value={value} onChange={(e) => onChange(e.target.value as S | '')}>
        <option value="">all</option>
        {statuses.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
    </label>
  );
}
