import { describe, expect, it } from 'vitest';
import { VIEWS } from '../views/view-registry.js';
import { runCommand } from './commands.js';

describe(': commands', () => {
  it('says what a mistyped command was probably meant to be, over view ids, aliases and built-ins', () => {
    expect(runCommand(VIEWS, 'delivereis')).toEqual({ kind: 'error', message: "unknown command 'delivereis'; did you mean 'deliveries'?" });
    // `sesions` is one edit from the alias `sessions`: the suggestion names the view.
    expect(runCommand(VIEWS, 'sesions')).toEqual({ kind: 'error', message: "unknown command 'sesions'; did you mean 'infosessions'?" });
    expect(runCommand(VIEWS, 'hepl')).toEqual({ kind: 'error', message: "unknown command 'hepl'; did you mean 'help'?" });
  });

  it('lists the views when nothing is close, and asks for more when a prefix fits several', () => {
    expect(runCommand(VIEWS, 'frobnicate')).toEqual({ kind: 'error', message: `unknown command 'frobnicate'; views: ${VIEWS.map((v) => v.id).join(', ')}; also help, quit` });
    expect(runCommand(VIEWS, 'c')).toEqual({ kind: 'error', message: "'c' could be 'config' or 'clusters'; type more of it" });
    expect(runCommand(VIEWS, 'deliv')).toMatchObject({ kind: 'view', view: { id: 'deliveries' } });
  });
});
