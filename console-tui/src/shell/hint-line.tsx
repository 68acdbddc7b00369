import type { ReactNode } from 'react';
import { Text } from 'ink';
import { truncate } from '../format/fit.js';
import { keyLabel, type KeyScope } from '../keys/key-registry.js';

/** `key word` pairs for every binding that has a hint, global ones first. */
export function hintEntries(scopes: readonly KeyScope[]): Array<{ key: string; hint: string }> {
  return scopes.filter((s) => s.state !== 'listed').flatMap((scope) => scope.bindings.flatMap((b) => (b.hint ? [{ key: keyLabel(b), hint: b.hint }] : [])));
}

/** The bottom line: the registry's hints, cut to the width. */
export function HintLine({ scopes, width }: { scopes: readonly KeyScope[]; width: number }): ReactNode {
  const entries = hintEntries(scopes);
  let room = width;
  const parts: ReactNode[] = [];
  for (const [i, { key, hint }] of entries.entries()) {
    const text = `${i === 0 ? ' ' : '  '}${key} ${hint}`;
    if (text.length > room) {
      if (room > 0) parts.push(<Text key="cut">{truncate(text, room)}</Text>);
      break;
    }
    room -= text.length;
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
