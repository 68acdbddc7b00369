import type { ReactNode } from 'react';
import { Text } from 'ink';
import { truncate } from '../format/fit.js';

/** One screen line of plain text, cut with `…` to the width so it never wraps. */
export function Line({ text, width, bold, dim, inverse }: { text: string; width: number; bold?: boolean; dim?: boolean; inverse?: boolean }): ReactNode {
  return (
    <Text wrap="truncate-end" {...(bold ? { bold } : {})} {...(dim ? { dimColor: dim } : {})} {...(inverse ? { inverse } : {})}>
      {truncate(text, width) || ' '}
    </Text>
  );
}
