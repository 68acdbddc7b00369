import { DeadBadge } from '../deliveries/dead-badge';
import { AppLink } from '../router/app-link';
import type { ViewDefinition } from '../views/view-definition';

export function NavBar({ views, current }: { views: readonly ViewDefinition[]; current: ViewDefinition | null }) {
  return (
    <nav className="nav" aria-label="Dashboard views">
      <ul>
        {views.map((view) => (
          <li key={view.path}>
            <AppLink to={view.path} aria-current={view === current ? 'page' : undefined}>
              {view.title}
              {view.path === '/deliveries' && <DeadBadge />}
            </AppLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
