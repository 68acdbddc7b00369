import type { ReactNode } from 'react';
import { Text } from 'ink';
import { truncate } from '../format/fit.js';
import type { ViewDefinition } from '../views/view.js';
import { commandSuggestions } from './commands.js';

/** The `:` prompt on the bottom line, with what the typed text could complete to. */
export function CommandLine({ views, text, width }: { views: readonly ViewDefinition[]; text: string; width: number }): ReactNode {
  const suggestions = text ? commandSuggestions(views, text).filter((s) => s !== text) : [];
  const typed = truncate(`:${text}`, Math.max(1, width - 1));
  const hint = suggestions.length > 0 ? `   ${suggestions.join('  ')}` : text ? '' : `   ${commandSuggestions(views, '').join(', ')} · Tab completes · Esc cancels`;
  return (
    <Text wrap="truncate-end">
      {typed}
      <Text inverse> </Text>
      <Text dimColor>{truncate(hint, Math.max(0, width - typed.length - 1))}</Text>
    </Text>
  );
}
