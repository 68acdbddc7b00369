import type { ReactNode } from 'react';
import { Text } from 'ink';
import type { ReloadRecord } from '@portico/daemon/control';
import { rejectedSaveProblem } from '@portico/daemon/control/diagnostics';
import { formatClockOrDate } from '../format/duration.js';
import { cellWidth, printable, truncate } from '../format/fit.js';
import { Tinted } from './theme.js';

/**
 * A save that did not apply, in one line of at most `width` cells: its first problem in short
 * (the Config view has the detail), then when, which is left out first when it does not fit:
 * `config rejected: portico.hcl:9,7-12: Unsupported argument (+1 more) · 14:03:05`.
 */
export function rejectedSaveText(record: ReloadRecord, nowMs: number, width = Number.POSITIVE_INFINITY): string {
  const what = record.result === 'failed' ? 'config reload failed' : 'config rejected';
  const text = printable(`${what}: ${rejectedSaveProblem(record)}`);
  const withTime = `${text} · ${formatClockOrDate(record.startedAt, nowMs)}`;
  return cellWidth(withTime) <= width ? withTime : truncate(text, width);
}

/**
 * The line under the tabs while the last config save is rejected, on every view until a reload
 * applies; `keyHint` (when given) says how to get to the Config view, and is never cut.
 */
export function RejectedSaveLine({ record, nowMs, width, keyHint }: { record: ReloadRecord; nowMs: number; width: number; keyHint: string | null }): ReactNode {
  const tail = keyHint ? ` · ${keyHint}` : '';
  const room = Math.max(0, width - cellWidth(tail) - 3);
  return (
    <Text wrap="truncate-end">
      {' '}
      <Tinted tone="bad" bold>
        ✗
      </Tinted>
      {` ${rejectedSaveText(record, nowMs, room)}`}
      {tail ? <Text bold>{tail}</Text> : null}
    </Text>
  );
}
