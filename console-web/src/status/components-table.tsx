import type { ComponentStatus } from '@portico/daemon/control';
import { StateBadge } from '../ui/state-badge';
import { TimeText } from '../ui/time-text';
import { componentLabel } from './labels';

export function ComponentsTable({ components }: { components: readonly ComponentStatus[] }) {
  return (
    <section className="card" aria-labelledby="components-heading">
      <h2 id="components-heading">Components</h2>
      {components.length === 0 ? (
        <p className="muted">No components registered.</p>
      ) : (
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Component</th>
                <th scope="col">State</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {components.map((c) => (
                <tr key={c.name} data-testid={`component-${c.name}`}>
                  <th scope="row">{c.name}</th>
                  <td>
                    <StateBadge label={componentLabel(c.state)} />
                    <span className="since">
                      since <TimeText iso={c.since} />
                    </span>
                  </td>
                  <td className="wrap-anywhere">{c.detail ?? <span className="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
