import { useCallback, useEffect, useMemo, useState } from 'react';
import { NAVIGATED } from './use-location';
import { readUrlValues, writeUrlValues, type UrlValues } from './url-state';

/**
 * How a change reaches the history: `push` a new entry (Back undoes it: a selection, a sort, a
 * page), `replace` the current one, or `typing`: the first key of a burst pushes, the next
 * keys in the same field replace, so Back goes to before the typing, not one letter back.
 */
export type UrlChange = 'push' | 'replace' | 'typing';

// The field being typed into, until some other change or a Back/Forward.
let typingIn: string | null = null;

/**
 * A view's filters and selected item, kept in the address's query string so a reload, Back and
 * Forward and a shared link bring them back. `defaults` names every key the view keeps (and its
 * value when the address has none); values are strings, '' meaning "not set".
 *
 *   const [url, setUrl] = useUrlState({ q: '', state: '', key: '' });
 *   setUrl({ key: k.id });                 // select: a history entry
 *   setUrl({ q: text, key: '' }, 'typing'); // a search box
 */
export function useUrlState<T extends UrlValues>(defaults: T): [T, (patch: Partial<T>, how?: UrlChange) => void] {
  const [search, setSearch] = useState(() => location.search);
  useEffect(() => {
    const update = () => setSearch(location.search);
    const back = () => {
      typingIn = null;
      update();
    };
    addEventListener('popstate', back);
    addEventListener(NAVIGATED, update);
    return () => {
      removeEventListener('popstate', back);
      removeEventListener(NAVIGATED, update);
    };
  }, []);
  const shape = JSON.stringify(defaults);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const values = useMemo(() => readUrlValues(search, defaults), [search, shape]);
  const change = useCallback(
    (patch: Partial<T>, how: UrlChange = 'push') => {
      const current = readUrlValues(location.search, defaults);
      const next = { ...current, ...patch } as T;
      const query = writeUrlValues(location.search, next, defaults);
      if (query === location.search) return;
      const field = how === 'typing' ? Object.keys(patch).join(',') : null;
      const replace = how === 'replace' || (how === 'typing' && typingIn === field);
      typingIn = field;
      const url = `${location.pathname}${query}${location.hash}`;
      if (replace) history.replaceState(history.state, '', url);
      else history.pushState(history.state, '', url);
      dispatchEvent(new Event(NAVIGATED));
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [shape],
  );
  return [values, change];
}
