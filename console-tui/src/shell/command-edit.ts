import type { ViewDefinition } from '../views/view.js';
import { commandSuggestions } from './commands.js';

export type CommandEdit = { kind: 'edit'; text: string } | { kind: 'submit'; text: string } | { kind: 'cancel' };

/** What one key does to the `:` prompt's text: Enter runs, Tab completes, Esc (or Backspace on empty) cancels. */
export function editCommand(views: readonly ViewDefinition[], text: string, name: string): CommandEdit {
  switch (name) {
    case 'enter':
      return { kind: 'submit', text };
    case 'escape':
    case 'ctrl+c':
      return { kind: 'cancel' };
    case 'backspace':
      return text === '' ? { kind: 'cancel' } : { kind: 'edit', text: Array.from(text).slice(0, -1).join('') };
    case 'tab': {
      const [only, ...rest] = commandSuggestions(views, text);
      return { kind: 'edit', text: only && rest.length === 0 ? only : text };
    }
    default:
      // Named keys (arrows, ctrl+x, ...) are longer than one character and do nothing here.
      return Array.from(name).length === 1 && name >= ' ' ? { kind: 'edit', text: text + name } : { kind: 'edit', text };
  }
}
