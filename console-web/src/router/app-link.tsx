import type { AnchorHTMLAttributes } from 'react';
import { useLinkClick } from './use-location';

/** An `<a>` to another dashboard view, navigating without a page load. */
export function AppLink({ to, ...rest }: { to: string } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'onClick'>) {
  const onClick = useLinkClick(to);
  return <a href={to} onClick={onClick} {...rest} />;
}
