import { closestName } from '../format/did-you-mean.js';
import { findView } from '../views/view-registry.js';
import type { ViewDefinition } from '../views/view.js';

export type CommandOutcome =
  | { kind: 'view'; view: ViewDefinition }
  | { kind: 'help' }
  | { kind: 'quit' }
  | { kind: 'none' }
  | { kind: 'error'; message: string };

const BUILT_INS = { help: 'help', h: 'help', quit: 'quit', q: 'quit', 'q!': 'quit' } as const;

/** What `:<text>` Enter does. */
export function runCommand(views: readonly ViewDefinition[], text: string): CommandOutcome {
  const name = text.trim().toLowerCase();
  if (name === '') return { kind: 'none' };
  const builtIn = BUILT_INS[name as keyof typeof BUILT_INS];
  if (builtIn) return { kind: builtIn };
  const found = findView(views, name);
  if (found.kind === 'found') return { kind: 'view', view: found.view };
  if (found.kind === 'ambiguous') return { kind: 'error', message: `'${name}' could be ${found.views.map((v) => `'${v.id}'`).join(' or ')}; type more of it` };
  const guess = didYouMean(views, name);
  if (guess) return { kind: 'error', message: `unknown command '${name}'; did you mean '${guess}'?` };
  return { kind: 'error', message: `unknown command '${name}'; views: ${views.map((v) => v.id).join(', ')}; also help, quit` };
}

/** The command a mistyped one was probably meant to be, by its full name: the view (or built-in) whose id or alias is closest. */
export function didYouMean(views: readonly ViewDefinition[], typed: string): string | null {
  const owner = new Map<string, string>();
  for (const v of views) for (const name of [v.id, ...v.aliases]) if (!owner.has(name)) owner.set(name, v.id);
  for (const name of Object.keys(BUILT_INS)) if (!owner.has(name)) owner.set(name, BUILT_INS[name as keyof typeof BUILT_INS]);
  const closest = closestName(typed, [...owner.keys()]);
  return closest ? owner.get(closest)! : null;
}

/** Names the typed text could complete to, for Tab and the suggestions after the cursor. */
export function commandSuggestions(views: readonly ViewDefinition[], text: string): string[] {
  const wanted = text.trim().toLowerCase();
  const names = [...views.map((v) => v.id), 'help', 'quit'];
  return names.filter((n) => n.startsWith(wanted));
}
