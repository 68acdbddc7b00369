import { describe, expect, it } from 'vitest';
import { resolveView } from './resolve-view';

const views = [{ path: '/status' }, { path: '/events' }];

describe('resolveView', () => {
  it('sends the root to the first view', () => {
    expect(resolveView('/', views)).toBe(views[0]);
    expect(resolveView('', views)).toBe(views[0]);
  });

  it('matches a view path, a trailing slash and paths under it, but not lookalikes', () => {
    expect(resolveView('/events', views)).toBe(views[1]);
    expect(resolveView('/events/', views)).toBe(views[1]);
    expect(resolveView('/events/b1:4', views)).toBe(views[1]);
    expect(resolveView('/eventsx', views)).toBeNull();
    expect(resolveView('/nope', views)).toBeNull();
  });
});
