import type { ComponentStatus } from '@portico/daemon/control';
import { StateBadge } from '../ui/state-badge';
import { TimeText } from '../ui/time-text';
import { summariseComponents } from './component-summary';
import { componentLabel } from './labels';

export function ComponentsTable({ components }: { components: readonly ComponentStatus[] }) {
  return (
    <section className="card" aria-labelledby="components-heading">
      <div className="card-heading">
        <h2 id="components-heading">Components</h2>
        <p className="muted summary">{summariseComponents(components)}</p>
      </div>
      {components.length === 0 ? (
        <p className="muted">No components registered.</p>
      ) : (
        <div className="table-scroll">
          {/* Explicit roles keep table semantics when narrow screens restyle rows as blocks. */}
          <table className="table table-stacking" role="table">
            <thead role="rowgroup">
              <tr role="row">
                <th scope="col" role="columnheader">Component</th>
                <th scope="col" role="columnheader">State</th>
                <th scope="col" role="columnheader">Detail</th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {components.map((c) => (
                <tr role="row" key={c.name} data-testid={`component-${c.name}`}>
                  <th scope="row" role="rowheader">{c.name}</th>
                  <td role="cell" className="cell-state">
                    <StateBadge label={componentLabel(c.state)} />
                    <span className="since">
                      since <TimeText iso={c.since} />
                    </span>
                  </td>
                  <td role="cell" className={c.detail ? 'cell-detail wrap-anywhere' : 'cell-detail cell-empty'}>{c.detail ?? <span className="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
