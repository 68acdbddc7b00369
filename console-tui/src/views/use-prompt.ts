import { useLayoutEffect, useRef, useState } from 'react';
import type { KeyScopeState } from '../keys/key-registry.js';
import { useKeyRegistry, useKeyScope } from '../keys/use-keys.js';

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
 * `onChange` (optional) hears every edit, for a filter that applies as it is typed.
 */
export function usePrompt(id: string, keyState: KeyScopeState, onSubmit: (text: string) => void, onCancel: () => void = () => {}, onChange?: (text: string) => void): Prompt {
  const registry = useKeyRegistry();
  const [text, setTextState] = useState<string | null>(null);
  // Mirrors the state so several keys in one input chunk build on each other.
  const ref = useRef<string | null>(null);
  const setText = (next: string | null): void => {
    const changed = next !== null && ref.current !== null && next !== ref.current;
    ref.current = next;
    setTextState(next);
    // Typing and deleting, not opening or closing: a view that filters as you type follows it.
    if (changed) onChange?.(next);
  };
  const onKey = (name: string): void => {
    const current = ref.current;
    if (current === null) return;
    if (name === 'enter') {
      setText(null);
      registry.release(captor);
      onSubmit(current);
    } else if (name === 'escape' || name === 'ctrl+c') {
      setText(null);
      registry.release(captor);
      onCancel();
    } else if (name === 'backspace') {
      setText(Array.from(current).slice(0, -1).join(''));
    } else if (Array.from(name).length === 1 && name >= ' ') {
      setText(current + name);
    }
  };
  // One stable function for the registry, always running this render's handler.
  const onKeyRef = useRef(onKey);
  onKeyRef.current = onKey;
  const [captor] = useState(() => (name: string) => onKeyRef.current(name));
  const active = text !== null && keyState === 'active';
  // The prompt keeps the keyboard only while its view is the live one (not behind the help, not switched away).
  useLayoutEffect(() => {
    if (active) registry.capture(captor);
    else registry.release(captor);
  }, [active, registry, captor]);
  useLayoutEffect(() => () => registry.release(captor), [registry, captor]);
  useKeyScope(`${id}-prompt`, 'Prompt', [{ keys: SWALLOWED, label: 'text', description: 'typed into the prompt; Enter accepts, Esc cancels', run: () => {} }], text !== null ? keyState : 'off');
  return {
    text,
    open: (initial = '') => {
      setText(initial);
      // At once, not after the next render: the rest of a pasted `/text` is typed into the prompt.
      if (keyState === 'active') registry.capture(captor);
    },
  };
}
