// A rejected reload's problems as the browser gets them: the cause first with the saved lines and a caret, the rest behind "+N more".
import type { ReloadDiagnostic } from '@portico/daemon/control';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DiagnosticsList } from './diagnostics-list';

const problem = (line: number, summary: string, excerpt: ReloadDiagnostic['excerpt'] = null): ReloadDiagnostic => ({
  severity: 'error', file: '/srv/conf/portico.hcl', line, column: 3, endLine: line, endColumn: 8, summary, detail: 'not expected here.', text: '', excerpt,
});

const text = (html: string): string => html.replace(/<[^>]+>/g, '').replace(/&quot;/g, '"');

describe('diagnostics list', () => {
  it('shows each problem as file:line,col with the lines as saved and a caret under the column', () => {
    const excerpt = { firstLine: 6, lines: ['  }', '  bogus = 1', '}'], line: 7, startColumn: 3, endColumn: 8 };
    const html = renderToStaticMarkup(<DiagnosticsList diagnostics={[problem(7, 'Unsupported argument', excerpt)]} />);
    expect(text(html)).toContain('portico.hcl:7,3-8: Unsupported argument; not expected here.');
    expect(html).toContain('aria-label="Lines 6–8 of portico.hcl as saved"');
    expect(text(html)).toContain('6 │   }\n7 │   bogus = 1\n  │   ^~~~~\n8 │ }\n');
    expect(html).toMatch(/<span class="excerpt-caret">  │   \^~~~~/);
    expect(html).not.toContain('more-diagnostics');
  });

  it('folds the problems past the third into an expandable "+N more", numbered on', () => {
    const html = renderToStaticMarkup(<DiagnosticsList diagnostics={[1, 2, 3, 4, 5].map((n) => problem(n, `Problem ${n}`))} />);
    const [shown, more] = html.split('<details');
    expect(text(shown ?? '')).toMatch(/Problem 1.*Problem 2.*Problem 3/s);
    expect(shown).not.toContain('Problem 4');
    expect(more).toMatch(/^ class="more-diagnostics" data-testid="more-diagnostics"><summary>\+2 more<\/summary><ol class="diagnostic-list" start="4">/);
    expect(text(more ?? '')).toMatch(/Problem 4.*Problem 5/s);
  });

  it('draws nothing when there is no problem', () => {
    expect(renderToStaticMarkup(<DiagnosticsList diagnostics={[]} />)).toBe('');
  });
});
