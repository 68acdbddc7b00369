import type { AccessControlKind, AccessControlView, LoginView } from '@portico/daemon/control';
import { formatClockOrDate } from '../format/duration.js';
import { printable, truncate, wrapLines } from '../format/fit.js';
import type { Tone } from '../format/state-label.js';

/** A login control's provider state: glyph + word, then when, the cached configuration and the error. */
export interface LoginState {
  glyph: string;
  word: string;
  tone: Tone;
  /** Follows the word: ` at 12:03:10, using cached configuration: …`, ` · configuration fetched at 12:01:03`, or empty. */
  rest: string;
}

export function loginState(kind: AccessControlKind, login: LoginView, nowMs: number): LoginState {
  const cached = login.usingCachedConfiguration ? ', using cached configuration' : '';
  if (login.lastError !== null) {
    const at = login.lastErrorAt ? ` at ${formatClockOrDate(login.lastErrorAt, nowMs)}` : '';
    return { glyph: '✗', word: 'failed', tone: 'bad', rest: `${at}${cached}: ${printable(login.lastError)}` };
  }
  // A refresh failed without an error on record (cannot happen today); still say what serves.
  if (login.usingCachedConfiguration) return { glyph: '◐', word: 'stale', tone: 'busy', rest: ': using cached configuration' };
  if (kind !== 'oidc') return { glyph: '●', word: 'ok', tone: 'good', rest: '' };
  if (login.configurationFetchedAt === null) return { glyph: '○', word: 'waiting', tone: 'idle', rest: ': configuration not fetched yet' };
  return { glyph: '●', word: 'ok', tone: 'good', rest: ` · configuration fetched at ${formatClockOrDate(login.configurationFetchedAt, nowMs)}` };
}

export interface ControlLine {
  /** Plain text, then `text` in `tone`; together at most the width. */
  lead: string;
  text: string;
  tone: Tone | null;
}

const STATE_INDENT = '     ';
/** Lines a login control's state may take, tried in turn until the controls fit their budget. */
const STATE_LINES = [6, 3, 1];

/**
 * The access controls above the routes table, at most `budget` lines of `width` cells: one line
 * each (`ops (basic_auth): password, realm "ops"`); a login control names its provider and gets
 * its state on the lines under it, the error wrapped whole when there is room. Short of room the
 * errors are cut to fewer lines, then each login control gets one line (its state, no provider),
 * then the list is cut.
 */
export function accessControlLines(controls: readonly AccessControlView[], width: number, nowMs: number, budget: number): ControlLine[] {
  for (const stateLines of STATE_LINES) {
    const lines = controls.flatMap((ac) => controlLines(ac, width, nowMs, stateLines));
    if (lines.length <= budget) return lines;
  }
  const lines = controls.map((ac) => oneLine(ac, width, nowMs));
  if (lines.length <= Math.max(1, budget)) return lines;
  const shown = Math.max(0, budget - 1);
  return [...lines.slice(0, shown), line('', `   … ${lines.length - shown} more access controls; a taller terminal shows them`, 'idle', width)];
}

function controlLines(ac: AccessControlView, width: number, nowMs: number, stateLines: number): ControlLine[] {
  if (ac.login === null) return [oneLine(ac, width, nowMs)];
  const state = loginState(ac.kind, ac.login, nowMs);
  const wrapped = wrapLines(`${state.glyph} ${state.word}${state.rest}`, Math.max(1, width - STATE_INDENT.length), stateLines);
  return [line(`   ${ac.label} (${ac.kind}): ${printable(ac.login.provider)}`, '', null, width), ...wrapped.map((text) => line(STATE_INDENT, text, state.tone, width))];
}

/** `ops (basic_auth): password, realm "ops"`, or a login control's state without its provider. */
function oneLine(ac: AccessControlView, width: number, nowMs: number): ControlLine {
  if (ac.login === null) return line(`   ${ac.label} (${ac.kind}): ${ac.detail}`, '', null, width);
  const state = loginState(ac.kind, ac.login, nowMs);
  return line(`   ${ac.label} (${ac.kind}) `, `${state.glyph} ${state.word}${state.rest}`, state.tone, width);
}

function line(lead: string, text: string, tone: Tone | null, width: number): ControlLine {
  const cut = Array.from(truncate(lead + text, width));
  const leadCells = Math.min(cut.length, Array.from(lead).length);
  return { lead: cut.slice(0, leadCells).join(''), text: cut.slice(leadCells).join(''), tone };
}
