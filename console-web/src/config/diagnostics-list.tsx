import { renderExcerpt } from '@portico/daemon/control/diagnostics';
import type { ReloadDiagnostic } from '@portico/daemon/control';
import { diagnosticLine, fileName } from './reload-text';

/** Problems shown in full before the rest fold into "+N more". */
const SHOWN = 3;

/**
 * A reload's problems, cause first as the daemon sorts them: each as its `file:line,col`
 * line and the lines of the file as it was saved (the rejected text) with a caret under the
 * problem; past the first three, a "+N more" that opens the rest.
 */
export function DiagnosticsList({ diagnostics }: { diagnostics: readonly ReloadDiagnostic[] }) {
  if (diagnostics.length === 0) return null;
  const shown = diagnostics.slice(0, SHOWN);
  const rest = diagnostics.slice(SHOWN);
  return (
    <div className="diagnostics" data-testid="diagnostics">
      <ol className="diagnostic-list">
        {shown.map((d, i) => (
          <DiagnosticItem key={i} diagnostic={d} />
        ))}
      </ol>
      {rest.length > 0 && (
        <details className="more-diagnostics" data-testid="more-diagnostics">
          <summary>+{rest.length} more</summary>
          <ol className="diagnostic-list" start={SHOWN + 1}>
            {rest.map((d, i) => (
              <DiagnosticItem key={i} diagnostic={d} />
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}

function DiagnosticItem({ diagnostic: d }: { diagnostic: ReloadDiagnostic }) {
  return (
    <li className={d.severity === 'error' ? 'tone-bad' : 'tone-busy'}>
      <span className="diagnostic-line">{diagnosticLine(d)}</span>
      {d.excerpt && (
        <pre className="excerpt" aria-label={`Lines ${d.excerpt.firstLine}–${d.excerpt.firstLine + d.excerpt.lines.length - 1} of ${fileName(d.file ?? '')} as saved`}>
          {renderExcerpt(d.excerpt).map((l, i) => (
            <span key={i} className={`excerpt-${l.kind}`}>
              {l.text}
              {'\n'}
            </span>
          ))}
        </pre>
      )}
    </li>
  );
}
