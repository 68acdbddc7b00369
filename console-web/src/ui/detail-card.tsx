import { useId, type ReactNode } from 'react';
import './selection.css';

/** The card of the item a list has open: its name as heading, a close button, then what it says. */
export function DetailCard({ title, onClose, testId, className = 'detail-card', children }: { title: ReactNode; onClose: () => void; testId: string; className?: string; children: ReactNode }) {
  const heading = useId();
  return (
    <aside className={`card ${className}`} aria-labelledby={heading} data-testid={testId}>
      <div className="card-heading">
        <h3 id={heading}>{title}</h3>
        <button type="button" onClick={onClose} aria-label="Close the detail">
          ×
        </button>
      </div>
      {children}
    </aside>
  );
}
