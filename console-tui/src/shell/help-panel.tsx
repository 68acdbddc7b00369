import { useState, type ReactNode } from 'react';
import { Box } from 'ink';
import { cellWidth, fit, wrapWords } from '../format/fit.js';
import { keyLabel, type KeyScope } from '../keys/key-registry.js';
import { useKeyScope } from '../keys/use-keys.js';
import type { ViewDefinition } from '../views/view.js';
import { Line } from './line.js';

interface HelpLine {
  text: string;
  heading?: boolean;
}

/** Key or command column, then the description wrapped under itself to the width. */
const LABEL_COLUMNS = 12;
const INDENT = '   ';

function entry(label: string, description: string, width: number): HelpLine[] {
  const lead = `${INDENT}${fit(label, LABEL_COLUMNS)} `;
  const room = Math.max(10, width - cellWidth(lead));
  return wrapWords(description, room).map((part, i) => ({ text: `${i === 0 ? lead : ' '.repeat(cellWidth(lead))}${part}` }));
}

/** The help's lines at `width` columns: every registered key, then the `:` commands. */
export function helpLines(scopes: readonly KeyScope[], views: readonly ViewDefinition[], width: number): HelpLine[] {
  const lines: HelpLine[] = [];
  for (const scope of scopes) {
    if (scope.bindings.length === 0) continue;
    lines.push({ text: ` ${scope.title} keys`, heading: true });
    for (const b of scope.bindings) lines.push(...entry(keyLabel(b), b.description, width));
    lines.push({ text: '' });
  }
  lines.push({ text: ' Commands (type : then the name, Enter)', heading: true });
  for (const v of views) {
    const aliases = v.aliases.length > 0 ? ` (${v.aliases.join(', ')})` : '';
    lines.push(...entry(`:${v.id}`, `${v.description}${aliases}`, width));
  }
  lines.push(...entry(':help', 'this help', width));
  lines.push(...entry(':quit', 'leave the console (q)', width));
  return lines;
}

export function HelpPanel({ scopes, views, width, height, onClose }: { scopes: readonly KeyScope[]; views: readonly ViewDefinition[]; width: number; height: number; onClose: () => void }): ReactNode {
  const [top, setTop] = useState(0);
  const lines = helpLines(scopes, views, width);
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
