import { useRef, useState } from 'react';
import { useInput } from 'ink';
import { keyNames, type KeyScopeState } from '../keys/key-registry.js';
import { useKeyScope } from '../keys/use-keys.js';

// Every key a prompt swallows so the view's and the global bindings (q, ?, :) stay quiet while typing.
const SWALLOWED = [
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
  'enter', 'escape', 'backspace', 'tab', 'shift+tab', 'up', 'down', 'left', 'right', 'pageup', 'pagedown', 'home', 'end', 'ctrl+c',
];

export interface Prompt {
  /** The text being typed; null when no prompt is open. */
  text: string | null;
  open(initial?: string): void;
}

/**
 * A one-line text prompt inside a view (`/` filter, a new key's name). While open it owns the
 * keyboard: Enter submits, Esc cancels, Backspace deletes; it is listed in the `?` help.
 */
export function usePrompt(id: string, keyState: KeyScopeState, onSubmit: (text: string) => void, onCancel: () => void = () => {}): Prompt {
  const [text, setTextState] = useState<string | null>(null);
  // Mirrors the state so several keys in one input chunk build on each other.
  const ref = useRef<string | null>(null);
  const setText = (next: string | null): void => {
    ref.current = next;
    setTextState(next);
  };
  const active = text !== null && keyState === 'active';
  useKeyScope(`${id}-prompt`, 'Prompt', [{ keys: SWALLOWED, label: 'text', description: 'typed into the prompt; Enter accepts, Esc cancels', run: () => {} }], text !== null ? keyState : 'off');
  useInput(
    (input, key) => {
      for (const name of keyNames(input, key)) {
        const current = ref.current;
        if (current === null) return;
        if (name === 'enter') {
          setText(null);
          onSubmit(current);
        } else if (name === 'escape' || name === 'ctrl+c') {
          setText(null);
          onCancel();
        } else if (name === 'backspace') {
          setText(Array.from(current).slice(0, -1).join(''));
        } else if (Array.from(name).length === 1 && name >= ' ') {
          setText(current + name);
        }
      }
    },
    { isActive: active },
  );
  return { text, open: (initial = '') => setText(initial) };
}
