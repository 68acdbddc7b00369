import { formatDiagnostic, HclError } from '../diagnostics.js';
import { evaluateSource, parse } from '../index.js';

/** Formatted diagnostics of parsing `src` as file `t.hcl`. */
export function parseErrors(src: string): string[] {
  return parse(src, 't.hcl').diagnostics.map(formatDiagnostic);
}

/** Formatted diagnostics thrown by evaluating `src` (empty when it succeeds). */
export function evalErrors(src: string, vars: Record<string, unknown> = {}): string[] {
  try {
    evaluateSource(src, vars, undefined, 'e');
    return [];
  } catch (error) {
    if (error instanceof HclError) return error.diagnostics.map(formatDiagnostic);
    throw error;
  }
}
