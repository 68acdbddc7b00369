import { formatDiagnostic, sourceExcerpt, type Diagnostic, type Range } from '../../hcl/index.js';
import type { ReloadDiagnostic } from '../control/control-types.js';
import { redactExcerpt, secretRanges } from '../control/redact-source.js';
import { PorticoError } from '../../core/errors.js';

/** Diagnostics of one load that carry the source lines around them; a file with hundreds of problems stays a small record. */
export const EXCERPTS_PER_LOAD = 50;

export interface ReloadDiagnosticsOptions {
  /** The text of each file as it was loaded (the rejected one, not the one serving): excerpts come from it. */
  texts?: ReadonlyMap<string, string>;
  /** Maps a file name (used by validate, whose candidate stands for another file). */
  rename?: (file: string) => string;
}

/**
 * The loader's diagnostics as the control API sends them: positions, the `config check`
 * line, and for the first EXCERPTS_PER_LOAD with a position the lines around the problem
 * with secret values shown as `"***"`.
 */
export function toReloadDiagnostics(list: readonly Diagnostic[], { texts, rename = (f) => f }: ReloadDiagnosticsOptions = {}): ReloadDiagnostic[] {
  const secrets = new Map<string, Range[]>();
  let excerpts = 0;
  return list.map((d) => {
    const text = d.range ? texts?.get(d.range.filename) : undefined;
    let excerpt: ReloadDiagnostic['excerpt'] = null;
    if (d.range && text !== undefined && excerpts < EXCERPTS_PER_LOAD) {
      excerpts += 1;
      const file = d.range.filename;
      if (!secrets.has(file)) secrets.set(file, secretRanges(text, file));
      excerpt = redactExcerpt(sourceExcerpt(text, d.range), text, secrets.get(file) ?? []);
    }
    return toReloadDiagnostic(d, rename, excerpt);
  });
}

function toReloadDiagnostic(d: Diagnostic, rename: (file: string) => string, excerpt: ReloadDiagnostic['excerpt']): ReloadDiagnostic {
  const file = d.range ? rename(d.range.filename) : null;
  const renamed: Diagnostic = d.range ? { ...d, range: { filename: file ?? '', start: d.range.start, end: d.range.end } } : d;
  return {
    severity: d.severity,
    file,
    line: d.range?.start.line ?? null,
    column: d.range?.start.column ?? null,
    endLine: d.range?.end.line ?? null,
    endColumn: d.range?.end.column ?? null,
    summary: d.summary,
    detail: d.detail,
    text: formatDiagnostic(renamed),
    excerpt,
  };
}

/** Raised by `ConfigManager.start` when the first configuration does not load or apply: the daemon must not start. */
export class ConfigLoadError extends PorticoError {
  override name = 'ConfigLoadError';
  constructor(
    message: string,
    readonly diagnostics: readonly ReloadDiagnostic[],
  ) {
    super('config_invalid', message, { category: 'invalid' });
  }
}
