import { useState, type ReactNode } from 'react';
import type { KeyScopeState } from '../keys/key-registry.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';

export interface Confirm<T> {
  /** What is being asked about; null when no question is open. */
  asking: T | null;
  ask(item: T): void;
  cancel(): void;
}

/**
 * A yes/no question before a destructive action, asked the same way in every view: `y` does
 * it, Esc (or `n`) keeps things as they are. While open its keys come before the view's.
 */
export function useConfirm<T>(id: string, keyState: KeyScopeState, onYes: (item: T) => void): Confirm<T> {
  const [asking, setAsking] = useState<T | null>(null);
  useKeyScope(
    `${id}-confirm`,
    'Question',
    [
      {
        keys: ['y'],
        description: 'yes: do what the question on the bottom line says',
        hint: 'yes',
        daemonAction: true,
        run: () => {
          setAsking(null);
          if (asking !== null) onYes(asking);
        },
      },
      { keys: ['escape', 'n'], label: 'Esc/n', description: 'no: keep things as they are', hint: 'no', run: () => setAsking(null) },
    ],
    asking !== null ? keyState : 'off',
  );
  return { asking, ask: setAsking, cancel: () => setAsking(null) };
}

/** The question, bold on the bottom line: ` revoke key_1 (mobile) for good? y revokes, Esc keeps it`. */
export function ConfirmLine({ question, yes, no, width }: { question: string; yes: string; no: string; width: number }): ReactNode {
  return <Line width={width} text={confirmText(question, yes, no)} bold />;
}

/** ` <question>? y <yes>, Esc <no>`: every confirmation in the console reads this way. */
export function confirmText(question: string, yes: string, no: string): string {
  return ` ${question}? y ${yes}, Esc ${no}`;
}
