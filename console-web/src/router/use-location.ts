import { useCallback, useEffect, useState } from 'react';

/** Dispatched on `window` when the app changes the address itself (pushState does not fire popstate). */
export const NAVIGATED = 'portico:navigated';

/** The location path, updated on back/forward and on `navigate`. No router library needed yet. */
export function useLocationPath(): string {
  const [path, setPath] = useState(() => location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    addEventListener('popstate', update);
    addEventListener(NAVIGATED, update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener(NAVIGATED, update);
    };
  }, []);
  return path;
}

export function navigate(path: string): void {
  if (path === location.pathname + location.search) return;
  history.pushState(null, '', path);
  dispatchEvent(new Event(NAVIGATED));
}

/** Click handler for in-app links: plain clicks navigate in place, modified clicks open as usual. */
export function useLinkClick(path: string): (event: React.MouseEvent<HTMLAnchorElement>) => void {
  return useCallback(
    (event) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      navigate(path);
    },
    [path],
  );
}
