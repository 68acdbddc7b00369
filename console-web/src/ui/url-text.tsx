import { Fragment } from 'react';
import './url-text.css';

/**
 * A URL (or a path) cut where a line may break: after each run of `/`, `.`, `:`, `?`, `&`, `=`
 * and `#` that follows a word (`https://` and `:8443/` stay whole, a leading `/` stays with its
 * word, and so does an IP address), so a narrow column wraps it between its parts, not inside a word.
 */
export function urlParts(url: string): string[] {
  return url.split(/(?<=[^/.:?&=#][/.:?&=#]+)(?![/.:?&=#])(?!(?<=\d\.)\d)/);
}

/** A URL that wraps between its parts (a part wider than the column still breaks inside). */
export function UrlText({ url }: { url: string }) {
  return (
    <span className="url-text">
      {urlParts(url).map((part, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
