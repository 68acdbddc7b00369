import { useEffect, useId, useRef, type ReactNode } from 'react';
import { ActionButton } from '../live/action-button';
import './confirm-question.css';

export interface ConfirmQuestionProps {
  /** The question, naming what the action does to what: "Revoke mobile (key_3f…) for good?". */
  children: ReactNode;
  /** The button that does it: a verb, "Revoke". */
  confirm: string;
  /** The button that leaves things as they are: "Keep it". */
  keep: string;
  onConfirm(): void;
  onKeep(): void;
  testId?: string;
}

/**
 * The in-page question every destructive action asks first (never the browser's `confirm()`,
 * which blocks the page and cannot be styled or tested): the question, the action (disabled
 * while the daemon is away) and a way out. Focus goes to the way out; Esc takes it too.
 */
export function ConfirmQuestion({ children, confirm, keep, onConfirm, onKeep, testId = 'confirm-question' }: ConfirmQuestionProps) {
  const id = useId();
  const keepButton = useRef<HTMLButtonElement>(null);
  useEffect(() => keepButton.current?.focus(), []);
  return (
    <div
      className="notice confirm-question"
      role="alertdialog"
      aria-labelledby={id}
      data-testid={testId}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onKeep();
      }}
    >
      <p id={id}>{children}</p>
      <div className="confirm-buttons">
        <ActionButton type="button" className="button-danger" onClick={onConfirm}>
          {confirm}
        </ActionButton>
        <button type="button" ref={keepButton} onClick={onKeep}>
          {keep}
        </button>
      </div>
    </div>
  );
}
