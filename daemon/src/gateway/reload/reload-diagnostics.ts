import { formatDiagnostic, type Diagnostic } from '../../hcl/index.js';
import type { ReloadDiagnostic } from '../control/control-types.js';

/** A loader diagnostic as the control API sends it, with its file name mapped by `rename` (used by validate). */
export function toReloadDiagnostic(d: Diagnostic, rename: (file: string) => string = (f) => f): ReloadDiagnostic {
  const file = d.range ? rename(d.range.filename) : null;
  const renamed: Diagnostic = d.range ? { ...d, range: { filename: file ?? '', start: d.range.start, end: d.range.end } } : d;
  return {
    severity: d.severity,
    file,
    line: d.range?.start.line ?? null,
    column: d.range?.start.column ?? null,
    summary: d.summary,
    detail: d.detail,
    text: formatDiagnostic(renamed),
  };
}

/** Raised by `ConfigManager.start` when the first configuration does not load or apply: the daemon must not start. */
export class ConfigLoadError extends Error {
  override name = 'ConfigLoadError';
  readonly code = 'config_invalid';
  constructor(
    message: string,
    readonly diagnostics: readonly ReloadDiagnostic[],
  ) {
    super(message);
  }
}
