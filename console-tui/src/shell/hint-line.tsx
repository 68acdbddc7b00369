import type { ReactNode } from 'react';
import { Text } from 'ink';
import { cellWidth, truncate } from '../format/fit.js';
import { keyLabel, type KeyScope } from '../keys/key-registry.js';

/** `key word` pairs for every binding that has a hint, global ones first; without the daemon's actions while they are off. */
export function hintEntries(scopes: readonly KeyScope[], actionsOff = false): Array<{ key: string; hint: string }> {
  return scopes
    .filter((s) => s.state !== 'listed')
    .flatMap((scope) => scope.bindings.flatMap((b) => (b.hint && !(actionsOff && b.daemonAction) ? [{ key: keyLabel(b), hint: b.hint }] : [])));
}

/**
 * The bottom line: the registry's hints, in order, as many whole ones as fit the width (`?`
 * help, always first, lists the rest); while `actionsOff` (`actions off while disconnected`),
 * that first and the daemon's actions left out.
 */
export function HintLine({ scopes, width, actionsOff = null }: { scopes: readonly KeyScope[]; width: number; actionsOff?: string | null }): ReactNode {
  const entries = hintEntries(scopes, actionsOff !== null);
  let room = width;
  const parts: ReactNode[] = [];
  if (actionsOff !== null) {
    const text = truncate(` ✗ ${actionsOff} ·`, room);
    room -= text.length;
    parts.push(
      <Text key="off" bold>
        {text}
      </Text>,
    );
  }
  for (const [i, { key, hint }] of entries.entries()) {
    const text = `${i === 0 ? ' ' : '  '}${key} ${hint}`;
    if (cellWidth(text) > room) {
      // Not even the first hint fits (a very narrow terminal): it is cut rather than left out.
      if (i === 0 && room > 0) parts.push(<Text key="cut">{truncate(text, room)}</Text>);
      break;
    }
    room -= cellWidth(text);
    parts.push(
      <Text key={key}>
        {`${i === 0 ? ' ' : '  '}`}
        <Text bold>{key}</Text>
        {` ${hint}`}
      </Text>,
    );
  }
  return <Text wrap="truncate-end">{parts.length > 0 ? parts : ' '}</Text>;
}
