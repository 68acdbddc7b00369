import type { Key } from 'ink';

export interface KeyBinding {
  /** Key names it answers to: a character (`q`, `?`) or a named key (see `keyName`). */
  keys: readonly string[];
  /** How help and the hint line write it; defaults to the keys' labels joined with `/`. */
  label?: string;
  /** One line in the `?` help. */
  description: string;
  /** Short word for the bottom hint line; without one the binding shows in the help only. */
  hint?: string;
  /** Asks the daemon to change something (reload, reset, cancel, create, revoke): refused while disconnected. */
  daemonAction?: boolean;
  /** `key`: the name of the key pressed, for a binding that answers to several. */
  run(key: string): void;
}

export interface KeyScope {
  /** `global`, or the id of the view or panel that owns the bindings. */
  id: string;
  title: string;
  bindings: readonly KeyBinding[];
  /** `listed`: shown in the help but not live (its view is behind the help). Default `active`. */
  state?: KeyScopeState;
}

/** How a scope takes part: live keys, help-only, or not at all. */
export type KeyScopeState = 'active' | 'listed' | 'off';

export const GLOBAL_SCOPE = 'global';

const NAMED_LABELS: Record<string, string> = {
  up: '↑',
  down: '↓',
  left: '←',
  right: '→',
  pageup: 'PgUp',
  pagedown: 'PgDn',
  home: 'Home',
  end: 'End',
  enter: 'Enter',
  escape: 'Esc',
  tab: 'Tab',
  'shift+tab': 'Shift+Tab',
  backspace: 'Backspace',
};

const CONTROL_NAMES: Record<string, string> = { '\r': 'enter', '\n': 'enter', '\t': 'tab', '\u007F': 'backspace', '\b': 'backspace' };

/**
 * The key names in one input event. Ink hands over typed-ahead or pasted text (tmux send-keys,
 * a fast typist over SSH) as one string, so plain text is split into one name per character.
 */
export function keyNames(input: string, key: Key): string[] {
  const plain = !key.ctrl && !key.meta && !input.includes('\u001B');
  if (!plain || Array.from(input).length <= 1) return [keyName(input, key)];
  return Array.from(input).map((ch) => {
    const named = CONTROL_NAMES[ch];
    if (named) return named;
    const code = ch.codePointAt(0) ?? 0;
    return code > 0 && code < 0x20 ? `ctrl+${String.fromCodePoint(code + 0x60)}` : ch;
  });
}

/** One name per key press: `q`, `G`, `up`, `pagedown`, `escape`, `ctrl+c`, ... */
export function keyName(input: string, key: Key): string {
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.leftArrow) return 'left';
  if (key.rightArrow) return 'right';
  if (key.pageUp) return 'pageup';
  if (key.pageDown) return 'pagedown';
  if (key.home) return 'home';
  if (key.end) return 'end';
  if (key.return) return 'enter';
  if (key.escape) return 'escape';
  if (key.tab) return key.shift ? 'shift+tab' : 'tab';
  if (key.backspace || key.delete) return 'backspace';
  if (key.ctrl && input) return `ctrl+${input.toLowerCase()}`;
  return input;
}

export function keyLabel(binding: KeyBinding): string {
  if (binding.label) return binding.label;
  return binding.keys.map((k) => NAMED_LABELS[k] ?? (k.startsWith('ctrl+') ? `Ctrl+${k.slice(5).toUpperCase()}` : k)).join('/');
}

/**
 * The one place key bindings live. The shell dispatches every key press through it, and the
 * `?` help and the bottom hint line both render from it, so they cannot disagree.
 */
export class KeyRegistry {
  #scopes: KeyScope[] = [];
  /** What help and hints render; replaced only when something they show changed. */
  #snapshot: readonly KeyScope[] = [];
  #listeners = new Set<() => void>();
  #shape = '';
  /** An open text prompt: it takes every key until it closes, even later keys of the same input chunk. */
  #captor: ((name: string) => void) | null = null;

  /** Routes every key to `captor` (a prompt that just opened) instead of the bindings. */
  capture(captor: (name: string) => void): void {
    this.#captor = captor;
  }

  /** Ends `captor`'s capture (a no-op when another one holds it). */
  release(captor: (name: string) => void): void {
    if (this.#captor === captor) this.#captor = null;
  }

  /**
   * One key press: to the capturing prompt if one is open, else the binding of the innermost
   * scope that has it. A prompt opened by a key gets the keys after it in the same chunk (a
   * paste of `/term` filters by "term" instead of running the bindings of t, e, r, m).
   */
  press(name: string): boolean {
    if (this.#captor) {
      this.#captor(name);
      return true;
    }
    return this.dispatch(name);
  }

  /** Adds or replaces a scope; the global scope always comes first, then scopes in arrival order. */
  set(scope: KeyScope): void {
    const i = this.#scopes.findIndex((s) => s.id === scope.id);
    const next = [...this.#scopes];
    if (i >= 0) next[i] = scope;
    else if (scope.id === GLOBAL_SCOPE) next.unshift(scope);
    else next.push(scope);
    this.#replace(next);
  }

  remove(id: string): void {
    if (this.#scopes.some((s) => s.id === id)) this.#replace(this.#scopes.filter((s) => s.id !== id));
  }

  scopes = (): readonly KeyScope[] => this.#snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Runs the binding for a key press, the innermost scope first; false when nothing took it. */
  dispatch(name: string): boolean {
    const binding = this.resolve(name);
    binding?.run(name);
    return binding !== undefined;
  }

  /** True while a prompt holds the keyboard (keys go to it, not to the bindings). */
  get capturing(): boolean {
    return this.#captor !== null;
  }

  /** The binding `dispatch(name)` would run: the innermost active scope's. */
  resolve(name: string): KeyBinding | undefined {
    const ordered = [...this.#scopes.filter((s) => s.id !== GLOBAL_SCOPE).reverse(), ...this.#scopes.filter((s) => s.id === GLOBAL_SCOPE)];
    for (const scope of ordered) {
      if (scope.state === 'listed') continue;
      const binding = scope.bindings.find((b) => b.keys.includes(name));
      if (binding) return binding;
    }
    return undefined;
  }

  /** Scopes are re-registered on every render with fresh closures; only a visible change notifies. */
  #replace(next: KeyScope[]): void {
    this.#scopes = next;
    const shape = JSON.stringify(next.map((s) => [s.id, s.title, s.state ?? 'active', s.bindings.map((b) => [keyLabel(b), b.description, b.hint ?? ''])]));
    if (shape === this.#shape) return;
    this.#shape = shape;
    this.#snapshot = next;
    for (const listener of this.#listeners) listener();
  }
}
