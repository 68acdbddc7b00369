import { useState, type ReactNode } from 'react';
import { Box } from 'ink';
import { cellWidth, fit, wrapWords } from '../format/fit.js';
import { GLOBAL_SCOPE, keyLabel, type KeyBinding, type KeyScope } from '../keys/key-registry.js';
import { useKeyScope } from '../keys/use-keys.js';
import type { ViewDefinition } from '../views/view.js';
import { Line } from './line.js';

interface HelpLine {
  text: string;
  heading?: boolean;
}

/** Key or command column (as wide as its longest label, within limits), then the description wrapped under itself. */
const MIN_LABEL_COLUMNS = 12;
const MAX_LABEL_COLUMNS = 18;
const INDENT = '   ';

function entry(label: string, description: string, width: number, labelColumns: number): HelpLine[] {
  const lead = `${INDENT}${fit(label, labelColumns)} `;
  const room = Math.max(10, width - cellWidth(lead));
  return wrapWords(description, room).map((part, i) => ({ text: `${i === 0 ? lead : ' '.repeat(cellWidth(lead))}${part}` }));
}

/** The view scope (innermost first) whose own binding answers one of a global binding's keys, so the global one does not run there. */
function takenBy(scopes: readonly KeyScope[], global: KeyBinding): { title: string; binding: KeyBinding } | null {
  for (const scope of [...scopes].reverse()) {
    if (scope.id === GLOBAL_SCOPE || scope.state === 'off') continue;
    const binding = scope.bindings.find((b) => b.keys.some((k) => global.keys.includes(k)));
    if (binding) return { title: scope.title, binding };
  }
  return null;
}

/** The help's lines at `width` columns: every registered key, then the `:` commands; while `actionsOff`, the daemon's actions say so. */
export function helpLines(scopes: readonly KeyScope[], views: readonly ViewDefinition[], width: number, actionsOff: string | null = null): HelpLine[] {
  const entries: { label: string; description: string }[][] = [];
  const titles: string[] = [];
  for (const scope of scopes) {
    if (scope.bindings.length === 0) continue;
    titles.push(` ${scope.title} keys`);
    entries.push(
      scope.bindings.map((b) => {
        const off = actionsOff && b.daemonAction ? ` (${actionsOff})` : '';
        const taken = scope.id === GLOBAL_SCOPE ? takenBy(scopes, b) : null;
        return { label: keyLabel(b), description: `${b.description}${off}${taken ? ` (not in this view: there ${keyLabel(taken.binding)} is ${taken.binding.hint ?? 'its own'}, see ${taken.title} keys)` : ''}` };
      }),
    );
  }
  titles.push(' Commands (type : then the name, Enter)');
  entries.push([
    ...views.map((v) => ({ label: `:${v.id}`, description: `${v.description}${v.aliases.length > 0 ? ` (${v.aliases.join(', ')})` : ''}` })),
    { label: ':help', description: 'this help' },
    { label: ':quit', description: 'leave the console (q)' },
  ]);
  const longest = Math.max(0, ...entries.flat().map((e) => cellWidth(e.label)));
  const labelColumns = Math.min(MAX_LABEL_COLUMNS, Math.max(MIN_LABEL_COLUMNS, longest));
  const lines: HelpLine[] = [];
  entries.forEach((group, i) => {
    if (i > 0) lines.push({ text: '' });
    lines.push({ text: titles[i]!, heading: true });
    for (const e of group) lines.push(...entry(e.label, e.description, width, labelColumns));
  });
  return lines;
}

export function HelpPanel({ scopes, views, width, height, onClose, actionsOff = null }: { scopes: readonly KeyScope[]; views: readonly ViewDefinition[]; width: number; height: number; onClose: () => void; actionsOff?: string | null }): ReactNode {
  const [top, setTop] = useState(0);
  const lines = helpLines(scopes, views, width, actionsOff);
  const overflow = lines.length > height;
  const page = overflow ? height - 1 : height;
  const lastTop = Math.max(0, lines.length - page);
  const at = Math.min(top, lastTop);
  useKeyScope('help', 'Help', [
    { keys: ['escape'], description: 'close the help (or press ? again)', hint: 'close help', run: onClose },
    ...(overflow
      ? [
          { keys: ['up', 'k'], label: '↑/k', description: 'scroll the help up', run: () => setTop(Math.max(0, at - 1)) },
          { keys: ['down', 'j'], label: '↓/j', description: 'scroll the help down', hint: 'more', run: () => setTop(Math.min(lastTop, at + 1)) },
        ]
      : []),
  ]);
  const visible = lines.slice(at, at + page);
  return (
    <Box flexDirection="column" width={width} height={height}>
      {visible.map((line, i) => (
        <Line key={i} width={width} text={line.text} {...(line.heading ? { bold: true } : {})} />
      ))}
      {overflow ? <Line width={width} text={` … lines ${at + 1}–${at + visible.length} of ${lines.length}; ↑/↓ to scroll`} dim /> : null}
    </Box>
  );
}
