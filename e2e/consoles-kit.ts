// Both consoles against a real daemon: `portico tui` in a tmux pane, the dashboard in Chromium.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PORTICO_BIN, REPO_ROOT, waitUntil, type DaemonHandle } from './harness.js';
import { shellQuote, TmuxServer } from './tmux.js';

export const WAIT_MS = 20_000;

export interface TuiPane {
  /** The pane's text now, one string per screen row. */
  rows(): string[];
  /** Waits until the pane matches `pattern`; the failure shows what it showed instead. */
  waitFor(pattern: RegExp): Promise<string[]>;
  keys(...keys: string[]): void;
  close(): void;
}

/** `portico tui` (no colour) in a fresh `columns`x`rows` pane of a private tmux server. */
export function openTui(name: string, daemon: DaemonHandle, columns: number, rows: number): TuiPane {
  const tmux = new TmuxServer(name);
  const command = `NO_COLOR=1 ${shellQuote(process.execPath)} ${shellQuote(PORTICO_BIN)} tui --url ${daemon.controlUrl} --token-file ${shellQuote(join(daemon.dataDir, 'control.token'))}; echo "[tui exited $?]"; sleep 600`;
  tmux.run('new-session', '-d', '-x', String(columns), '-y', String(rows), '-s', 'tui', '-c', REPO_ROOT, command);
  const capture = (): string[] => tmux.run('capture-pane', '-p', '-t', 'tui').replace(/\n$/, '').split('\n');
  return {
    rows: capture,
    async waitFor(pattern) {
      let last: string[] = [];
      await waitUntil(() => pattern.test((last = capture()).join('\n')), WAIT_MS, () => `the ${columns}x${rows} pane never matched ${pattern}; it shows:\n${last.join('\n')}`);
      return last;
    },
    keys: (...keys) => void tmux.run('send-keys', '-t', 'tui', ...keys),
    close: () => tmux.kill(),
  };
}

export async function signIn(page: Page, daemon: DaemonHandle): Promise<void> {
  await page.goto(`${daemon.controlUrl}/`);
  await page.getByLabel('Control token').fill(daemon.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('connection').filter({ hasText: /Live/ }).waitFor({ timeout: WAIT_MS });
}

export async function goToView(page: Page, title: string): Promise<void> {
  // A name may carry a badge after it (Deliveries' DEAD count).
  await page.getByRole('navigation', { name: 'Dashboard views' }).getByRole('link', { name: new RegExp(`^${title}\\b`) }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor({ timeout: WAIT_MS });
}

/** Every view's name in the top bar, whether it shows whole, and whether they share one row. */
export async function navLayout(page: Page): Promise<{ titles: string[]; cut: string[]; rows: number }> {
  return page.getByRole('navigation', { name: 'Dashboard views' }).evaluate((nav) => {
    const box = nav.getBoundingClientRect();
    const links = [...nav.querySelectorAll('a')];
    // e2e code has no DOM types: the page's own width comes from the document.
    const pageWidth = nav.ownerDocument.documentElement.clientWidth;
    const inside = (r: typeof box) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5 && r.right <= pageWidth;
    return {
      titles: links.map((a) => a.textContent ?? ''),
      cut: links.filter((a) => !inside(a.getBoundingClientRect())).map((a) => a.textContent ?? ''),
      rows: new Set(links.map((a) => Math.round(a.getBoundingClientRect().top))).size,
    };
  });
}
