import { useEffect, useId, useRef, type ReactNode } from 'react';
import './selection.css';

/**
 * The card of the item a list has open: its name as heading, a close button, then what it says.
 * With `revealKey` (the open item's id), a card opened out of sight (below a long list at narrow
 * widths) is scrolled into view and focused; closing it then returns focus, and the view, to
 * what opened it.
 */
export function DetailCard({
  title,
  onClose,
  testId,
  className = 'detail-card',
  revealKey,
  children,
}: {
  title: ReactNode;
  onClose: () => void;
  testId: string;
  className?: string;
  revealKey?: string;
  children: ReactNode;
}) {
  const heading = useId();
  const card = useRef<HTMLElement>(null);
  const opener = useRef<HTMLElement | null>(null);

  useEffect(() => {
    const el = card.current;
    if (revealKey === undefined || !el || !outOfSight(el)) return;
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    el.scrollIntoView({ block: 'start' });
    el.focus({ preventScroll: true });
  }, [revealKey]);

  const close = () => {
    const back = opener.current;
    onClose();
    if (back?.isConnected) back.focus();
  };

  return (
    <aside ref={card} className={`card ${className}`} aria-labelledby={heading} data-testid={testId} tabIndex={revealKey === undefined ? undefined : -1}>
      <div className="card-heading">
        <h3 id={heading}>{title}</h3>
        <button type="button" onClick={close} aria-label="Close the detail">
          ×
        </button>
      </div>
      {children}
    </aside>
  );
}

/** Whether a reader would miss the card: its top is above the window or in its lower half. */
function outOfSight(el: HTMLElement): boolean {
  const { top } = el.getBoundingClientRect();
  return top < 0 || top > window.innerHeight / 2;
}
