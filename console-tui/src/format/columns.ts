import { cellWidth, fit } from './fit.js';

/** One column of a table on the terminal. */
export interface ColumnSpec {
  header: string;
  /** The cell texts of every row (not only the visible ones), so widths do not jump while scrolling. */
  cells: readonly string[];
  /**
   * Text columns (names, URLs, messages) share the width the fixed ones leave, each up to its
   * widest cell; fixed columns (states, counts, times) keep their widest cell.
   */
  grow?: boolean;
  /** A text column that gets only what the other text columns leave (an error message last in the row). */
  rest?: boolean;
  /** Fewest cells a text column is still worth showing at (default 8); below it it is dropped. */
  min?: number;
  /** When the terminal is too narrow for every column, the lowest `keep` goes first (default 0). */
  keep?: number;
}

export interface TableLayout {
  /** Cells per column, in the order given; 0 for a column dropped for lack of room. */
  widths: number[];
  indent: number;
  gap: number;
}

/** Column `i` of a table's rows: a `ColumnSpec`'s cells. */
export function cellsOf(rows: readonly (readonly string[])[], i: number): string[] {
  return rows.map((r) => r[i] ?? '');
}

/** One cell of a row as laid out: the spaces before it, then its text fitted to the column. */
export interface LaidCell {
  column: number;
  sep: string;
  text: string;
}

const DEFAULT_MIN = 8;

/**
 * Widths for `columns` in `width` cells (after `indent`, `gap` between columns). Fixed columns
 * take their widest cell; the text columns share the rest fairly: a short one gets all it
 * needs, the spare goes on to the wider ones (a URL column gets what a short name column
 * leaves), and `rest` columns get what is left after them. When even the minimums do not fit,
 * columns are dropped, lowest `keep` first.
 */
export function layoutColumns(columns: readonly ColumnSpec[], width: number, { indent = 1, gap = 2 } = {}): TableLayout {
  const natural = columns.map((c) => Math.max(cellWidth(c.header), ...c.cells.map(cellWidth)));
  const minimum = columns.map((c, i) => (c.grow ? Math.min(natural[i]!, c.min ?? DEFAULT_MIN) : natural[i]!));
  const shown = columns.map(() => true);
  const used = (): number => indent + shown.reduce((sum, on, i) => sum + (on ? minimum[i]! : 0), 0) + gap * Math.max(0, shown.filter(Boolean).length - 1);
  while (used() > width && shown.filter(Boolean).length > 1) {
    // The least important column goes first; among equals the rightmost.
    let drop = -1;
    shown.forEach((on, i) => {
      if (on && (drop < 0 || (columns[i]!.keep ?? 0) <= (columns[drop]!.keep ?? 0))) drop = i;
    });
    shown[drop] = false;
  }
  const widths = columns.map((_c, i) => (shown[i] ? minimum[i]! : 0));
  let spare = width - used();
  if (spare < 0) {
    // A single column wider than the terminal: it gets what there is.
    const only = shown.indexOf(true);
    widths[only] = Math.max(0, widths[only]! + spare);
    return { widths, indent, gap };
  }
  // Max-min fair share of the spare among the text columns that want more, short needs first;
  // the `rest` columns share what is left after that.
  for (const rest of [false, true]) {
    let wanting = columns.map((_c, i) => i).filter((i) => shown[i] && columns[i]!.grow && !!columns[i]!.rest === rest && natural[i]! > widths[i]!);
    while (spare > 0 && wanting.length > 0) {
      const share = Math.floor(spare / wanting.length);
      const smallest = Math.min(...wanting.map((i) => natural[i]! - widths[i]!));
      const step = Math.max(1, Math.min(share, smallest));
      for (const i of wanting) {
        const give = Math.min(step, natural[i]! - widths[i]!, spare);
        widths[i] = widths[i]! + give;
        spare -= give;
      }
      wanting = wanting.filter((i) => natural[i]! > widths[i]!);
    }
  }
  return { widths, indent, gap };
}

/** The cells of one row fitted to the layout, dropped columns left out. */
export function layoutCells(layout: TableLayout, cells: readonly string[]): LaidCell[] {
  const out: LaidCell[] = [];
  layout.widths.forEach((w, column) => {
    if (w <= 0) return;
    out.push({ column, sep: ' '.repeat(out.length === 0 ? layout.indent : layout.gap), text: fit(cells[column] ?? '', w) });
  });
  return out;
}

/** A whole row (or the header) as one line of text. */
export function layoutLine(layout: TableLayout, cells: readonly string[]): string {
  return layoutCells(layout, cells)
    .map((c) => c.sep + c.text)
    .join('');
}
