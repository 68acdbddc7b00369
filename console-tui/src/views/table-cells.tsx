import { Fragment, type ReactNode } from 'react';
import { layoutCells, type TableLayout } from '../format/columns.js';
import type { Tone } from '../format/state-label.js';
import { Tinted } from '../shell/theme.js';

/** A table row's cells as laid out (put it inside a `<Text>`), the `tinted` columns in `tone`. */
export function Cells({ layout, cells, tinted = [], tone = 'plain' }: { layout: TableLayout; cells: readonly string[]; tinted?: readonly number[]; tone?: Tone }): ReactNode {
  return layoutCells(layout, cells).map((c) => (
    <Fragment key={c.column}>
      {c.sep}
      {tinted.includes(c.column) ? <Tinted tone={tone}>{c.text}</Tinted> : c.text}
    </Fragment>
  ));
}
