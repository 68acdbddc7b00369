import type { InfosessionsSourceStatus, SessionView } from '@portico/daemon/control';
import { useControlQuery } from '../api/use-control-query';
import { ariaSort, buildingText, fileSummary, isFiltered, listInput, nextSort, PAGE_SIZE, pageText, SESSIONS_URL, sessionsFromUrl, sessionTime, websiteHref, type SessionFilters, type SortColumn } from '../infosessions/session-table';
import { useUrlState } from '../router/use-url-state';
import { DetailCard } from '../ui/detail-card';
import { TimeText } from '../ui/time-text';
import '../styles/infosessions.css';
import type { ViewDefinition } from './view-definition';

const COLUMNS: Array<{ column: SortColumn | null; label: string }> = [
  { column: 'date', label: 'Date' },
  { column: null, label: 'Time' },
  { column: 'employer', label: 'Employer' },
  { column: 'building', label: 'Building' },
  { column: 'id', label: 'Id' },
];

/** The address key of each filter. */
const FILTER_KEYS = { search: 'q', from: 'from', to: 'to', audience: 'audience' } as const;

function InfosessionsView() {
  // Filters, sort, page and the open session live in the address: reload, Back and links keep them.
  const [url, setUrl] = useUrlState(SESSIONS_URL);
  const { filters, sort, page } = sessionsFromUrl(url);
  const read = useControlQuery(
    (c) => Promise.all([c.infosessions.list.query(listInput(filters, sort, page)), c.infosessions.source.query()]).then(([list, source]) => ({ list, source })),
    [filters.search, filters.from, filters.to, filters.audience, sort.column, sort.order, page],
    { refetchOn: ['infosessions.reloaded'] },
  );
  const data = read.data?.list ?? null;
  const source = read.data?.source ?? null;
  const error = read.error;

  const setFilter = (name: keyof SessionFilters, value: string) => setUrl({ [FILTER_KEYS[name]]: value, page: '1' }, name === 'audience' ? 'push' : 'typing');
  const setPage = (to: number) => setUrl({ page: String(to + 1) });
  const sortBy = (column: SortColumn) => {
    const next = nextSort(sort, column);
    setUrl({ sort: next.column, order: next.order, page: '1' });
  };
  const items = data?.items ?? [];
  const selected = url.session ? (items.find((s) => String(s.line) === url.session) ?? null) : null;
  const lastPage = data ? Math.max(0, Math.ceil(data.total / PAGE_SIZE) - 1) : 0;

  return (
    <div className="stack">
      {source && <SourceCard source={source} />}
      <section className="card" aria-labelledby="sessions-heading">
        <div className="card-heading">
          <h2 id="sessions-heading">Sessions</h2>
          <p className="muted summary" aria-live="polite">
            {data ? pageText(data.offset, items.length, data.total) : 'Loading…'}
          </p>
        </div>
        <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
          <label>
            Search <input type="search" value={filters.search} placeholder="employer or description" onChange={(e) => setFilter('search', e.target.value)} />
          </label>
          <label>
            From <input type="date" value={filters.from} onChange={(e) => setFilter('from', e.target.value)} />
          </label>
          <label>
            To <input type="date" value={filters.to} onChange={(e) => setFilter('to', e.target.value)} />
          </label>
          <label>
            Audience
            <select value={filters.audience} onChange={(e) => setFilter('audience', e.target.value)}>
              <option value="">any</option>
              {(data?.audiences ?? []).map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={() => setUrl({ q: '', from: '', to: '', audience: '', page: '1' })}>
            Clear
          </button>
        </form>
        {error && <p className="error">{error}</p>}
        <div className="sessions-layout">
          <div className="table-scroll">
            <table className="table sessions-table">
              <thead>
                <tr>
                  {COLUMNS.map(({ column, label }) => (
                    <th key={label} scope="col" aria-sort={column ? ariaSort(sort, column) : undefined}>
                      {column ? (
                        <button type="button" className="sort-button" onClick={() => sortBy(column)}>
                          {label}
                          <span aria-hidden="true">{sort.column === column ? (sort.order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                        </button>
                      ) : (
                        label
                      )}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {items.map((s) => (
                  <tr key={s.line} className={selected?.line === s.line ? 'selected' : undefined} data-testid="session-row">
                    <td className="nowrap">{s.date ?? '—'}</td>
                    <td className="nowrap">{sessionTime(s)}</td>
                    <td>
                      <button type="button" className="link-button" onClick={() => setUrl({ session: selected?.line === s.line ? '' : String(s.line) })} aria-expanded={selected?.line === s.line}>
                        {s.employer ?? '(no employer)'}
                      </button>
                    </td>
                    <td>{buildingText(s)}</td>
                    <td className="muted">{s.id ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {data && items.length === 0 && <p className="muted">{isFiltered(filters) ? 'No session matches these filters.' : 'No sessions loaded; see the source above.'}</p>}
            <div className="pager">
              <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
                Previous
              </button>
              <button type="button" disabled={page >= lastPage} onClick={() => setPage(page + 1)}>
                Next
              </button>
            </div>
          </div>
          {selected && <SessionDetail session={selected} onClose={() => setUrl({ session: '' })} />}
        </div>
        {url.session && data && !selected && <p className="muted">The session at CSV line {url.session} is not on this page (the file may have changed since the link was made).</p>}
      </section>
    </div>
  );
}

function SourceCard({ source }: { source: InfosessionsSourceStatus }) {
  const files = [
    { file: source.sessions, one: 'session' },
    { file: source.buildings, one: 'building' },
  ];
  const problems = [...source.sessions.rejected.map((p) => ({ ...p, kind: 'skipped' })), ...source.sessions.warnings.map((p) => ({ ...p, kind: 'warning' }))];
  return (
    <section className="card" aria-labelledby="source-heading">
      <div className="card-heading">
        <h2 id="source-heading">Source</h2>
        <p className="muted summary">{source.sessions.loadedAt ? (
            <>
              loaded <TimeText iso={source.sessions.loadedAt} />
            </>
          ) : (
            'never loaded'
          )}</p>
      </div>
      <ul className="plain-list">
        {files.map(({ file, one }) => {
          const s = fileSummary(file, one);
          return (
            <li key={file.file} className={`tone-${s.tone}`} data-testid="source-file">
              {s.text}
            </li>
          );
        })}
      </ul>
      {problems.length > 0 && (
        <details>
          <summary>{problems.length} row problems</summary>
          <ul className="plain-list">
            {problems.map((p) => (
              <li key={`${p.kind}${p.line}`}>
                line {p.line} ({p.kind}): {p.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function SessionDetail({ session: s, onClose }: { session: SessionView; onClose: () => void }) {
  const href = websiteHref(s.website);
  return (
    <DetailCard title={s.employer ?? '(no employer)'} onClose={onClose} testId="session-detail" className="session-detail" revealKey={String(s.line)}>
      <dl className="facts">
        <dt>When</dt>
        <dd>
          {s.date ?? '—'} ({s.day ?? '—'}), {sessionTime(s)}
        </dd>
        <dt>Where</dt>
        <dd>
          {[s.building.name, s.building.room].filter(Boolean).join(', ') || '—'}
          {s.building.code && ` [${s.building.code}]`}
          {s.building.map_url && (
            <>
              {' '}
              · <a href={s.building.map_url} target="_blank" rel="noreferrer">map</a>
            </>
          )}
        </dd>
        <dt>Website</dt>
        <dd className="wrap-anywhere">{href ? <a href={href} target="_blank" rel="noreferrer">{s.website}</a> : (s.website ?? '—')}</dd>
        <dt>Students</dt>
        <dd>{s.students ?? '—'}</dd>
        <dt>Audience</dt>
        <dd>{s.audience?.join(', ') ?? '—'}</dd>
        <dt>Link</dt>
        <dd className="wrap-anywhere">{s.link ? <a href={s.link} target="_blank" rel="noreferrer">{s.link}</a> : '—'}</dd>
        <dt>Id · line</dt>
        <dd>
          {s.id ?? '—'} · CSV line {s.line}
        </dd>
      </dl>
      <p className="description">{s.description ?? <span className="muted">No description.</span>}</p>
    </DetailCard>
  );
}

export const view: ViewDefinition = { path: '/infosessions', title: 'Infosessions', order: 40, Component: InfosessionsView };
