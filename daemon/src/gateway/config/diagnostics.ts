import type { Block, Diagnostic, Range } from '../../hcl/index.js';

/** Collects the loader's diagnostics; building goes on after an error so one run reports every problem. */
export class Diagnostics {
  readonly list: Diagnostic[] = [];

  error(summary: string, detail: string, range?: Range): void {
    this.list.push(range ? { severity: 'error', summary, detail, range: plainRange(range) } : { severity: 'error', summary, detail });
  }

  add(diags: readonly Diagnostic[]): void {
    this.list.push(...diags);
  }

  get hasErrors(): boolean {
    return this.list.some((d) => d.severity === 'error');
  }
}

/**
 * A plain copy: parsed ranges compute their positions lazily from the source text, and a
 * loaded config (sent to consoles, kept across reloads) should hold only data.
 */
export function plainRange(r: Range): Range {
  const { start, end } = r;
  return { filename: r.filename, start: { line: start.line, column: start.column, byte: start.byte }, end: { line: end.line, column: end.column, byte: end.byte } };
}

/** The block's type and labels: where an operator looks for "this block". */
export function headerRange(block: Block): Range {
  const last = block.labelRanges[block.labelRanges.length - 1] ?? block.typeRange;
  return { filename: block.typeRange.filename, start: block.typeRange.start, end: last.end };
}

/** `file:line,col` of a range, for details that point at another place ("already defined at ..."). */
export function where(r: Range): string {
  return `${r.filename}:${r.start.line},${r.start.column}`;
}
