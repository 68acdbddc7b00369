// Both consoles agree and fit: the TUI uses the terminal's width (a long origin reads whole at
// 120 columns, the state stays at 80), counts hidden tabs in words, says "too small" in lines
// that fit, suggests the command a typo meant, filters infosessions as you type and creates a key
// with a monthly limit; the web keeps filters and the selected item in the address (reload, Back)
// and asks in the page before revoking.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { seedDeliveries } from '../daemon/src/ingest/testing/ingest-fixture.js';
import { SqliteStore } from '../daemon/src/store/sqlite-store.js';
import { launchChromium, openPage } from './browser.js';
import { goToView, openTui, signIn, WAIT_MS, type TuiPane } from './consoles-kit.js';
import { ARTIFACTS_DIR, controlQuery, REPO_ROOT, startDaemon, type DaemonHandle } from './harness.js';

/** An origin of 68 characters: at 120 columns fixed column widths left it 66, the shared width gives it 69. */
const LONG_HOST = 'orders-api.payments.eu-west-1.prod.internal.example.com';
const LONG_ORIGIN = `https://${LONG_HOST}:8443`;
const EXTRA = `server "portico" {
  endpoint "/orders/**" {
    proxy {
      backend = "orders"
    }
  }
}

definitions {
  backend "orders" {
    origin = "${LONG_ORIGIN}"
  }
}
`;

let daemon: DaemonHandle;
let browser: Browser;
let configDir: string;
const panes: TuiPane[] = [];

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'console-web', 'dist', 'index.html'))) throw new Error('run `npm run build -w console-web` first');
  configDir = mkdtempSync(join(tmpdir(), 'portico-e2e-consistency-'));
  const extra = join(configDir, 'orders.hcl');
  writeFileSync(extra, EXTRA);
  [daemon, browser] = await Promise.all([startDaemon({ args: ['-f', join(REPO_ROOT, 'config', 'portico.hcl'), '-f', extra] }), launchChromium()]);
});
afterEach(() => {
  for (const pane of panes.splice(0)) pane.close();
});
afterAll(async () => {
  await browser?.close();
  await daemon?.dispose();
  rmSync(configDir, { recursive: true, force: true });
});

function tui(name: string, columns: number, rows: number): TuiPane {
  const pane = openTui(name, daemon, columns, rows);
  panes.push(pane);
  return pane;
}

function fitsIn(rows: string[], columns: number): void {
  for (const row of rows) expect(Array.from(row).length, row).toBeLessThanOrEqual(columns);
}

/** The pane as text in e2e/artifacts, to look at (the screenshots of a terminal). */
function keepScreen(name: string, rows: string[]): void {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  writeFileSync(join(ARTIFACTS_DIR, `consistency-${name}.txt`), `${rows.join('\n')}\n`);
}

describe('terminal console', () => {
  it('120x30: a long origin and cluster endpoint read whole; a mistyped command gets a suggestion', async () => {
    const pane = tui('wide', 120, 30);
    await pane.waitFor(/● connected/);
    pane.keys(':backends', 'Enter');
    const backends = await pane.waitFor(new RegExp(`^ orders +– unchecked +- +0 +- +${LONG_ORIGIN.replace(/\./g, '\\.')}\\s*$`, 'm'));
    fitsIn(backends, 120);
    keepScreen('backends-120x30', backends);
    pane.keys(':clusters', 'Enter');
    const clusters = await pane.waitFor(new RegExp(`^ orders +STRICT_DNS +. \\w+(?: not checked)? +${LONG_HOST.replace(/\./g, '\\.')}:8443 tls\\s*$`, 'm'));
    fitsIn(clusters, 120);
    keepScreen('clusters-120x30', clusters);
    pane.keys(':delivereis', 'Enter');
    const typo = await pane.waitFor(/unknown command 'delivereis'; did you mean 'deliveries'\?/);
    expect(typo.at(-1)).toBe(" unknown command 'delivereis'; did you mean 'deliveries'?");
    expect(typo[1]).toContain('[clusters]');
  });

  it('80x24: hidden tabs counted in words, the state kept beside a cut origin, infosessions filtered as you type', async () => {
    const pane = tui('narrow', 80, 24);
    const first = await pane.waitFor(/● connected/);
    expect(first[1]).toMatch(/ \+1 tab ›\s*$/);
    pane.keys(':deliveries', 'Enter');
    expect((await pane.waitFor(/\[deliveries\]/))[1]).toMatch(/^‹ \+\d tabs? /);
    pane.keys(':backends', 'Enter');
    const backends = await pane.waitFor(/^ orders +– unchecked +- +0 +- +https:\/\/orders-api\.\S+…\s*$/m);
    fitsIn(backends, 80);
    keepScreen('backends-80x24', backends);

    pane.keys(':infosessions', 'Enter');
    await pane.waitFor(/INFOSESSIONS {2}363 sessions/);
    pane.keys('/');
    pane.keys('-l', 'hulu');
    // No Enter: the list follows the prompt.
    const typing = await pane.waitFor(/1 matching "hulu"/);
    expect(typing.join('\n')).toMatch(/^\/hulu█/m);
    expect(typing.join('\n')).toMatch(/2013-09-09 {2}11:30-13:30 {2}Hulu\s+TC 2218/);
    keepScreen('infosessions-typing-80x24', typing);
    pane.keys('Enter', 'Enter');
    const detail = await pane.waitFor(/at Tatham Centre, 2218 \[TC\]/);
    fitsIn(detail, 80);
    keepScreen('infosessions-detail-80x24', detail);
  });

  it('80x24: creates a key with a monthly limit, asking again when the limit is not a number', async () => {
    const pane = tui('keys', 80, 24);
    await pane.waitFor(/● connected/);
    pane.keys(':keys', 'Enter');
    await pane.waitFor(/API KEYS/);
    pane.keys('n');
    pane.keys('-l', 'partner portal');
    pane.keys('Enter');
    await pane.waitFor(/monthly limit for partner portal \(calls a month; empty = no limit\): █/);
    pane.keys('-l', '10k');
    pane.keys('Enter');
    const refused = await pane.waitFor(/monthly limit "10k" is not a whole number: type e\.g\. 10000, or leave it empty/);
    keepScreen('keys-limit-80x24', refused);
    pane.keys('BSpace', 'BSpace', 'BSpace');
    pane.keys('-l', '5000');
    pane.keys('Enter');
    await pane.waitFor(/new key for partner portal \(limit 5000 calls a month\), shown only now/);
    const listed = await pane.waitFor(/key_[0-9a-f]{10}\s+partner portal\s+[0-9a-f]{4}\*\*\*\s+active\s+0\/5000/);
    fitsIn(listed, 80);
    const keys = (await controlQuery(daemon, 'keys.list', daemon.token)).body as { result: { data: Array<{ name: string; monthlyLimit: number | null }> } };
    expect(keys.result.data.find((k) => k.name === 'partner portal')?.monthlyLimit).toBe(5000);
  });

  it('19x5: says the terminal is too small in whole words that fit', async () => {
    const pane = tui('tiny', 19, 5);
    const rows = await pane.waitFor(/need 20x6/);
    keepScreen('too-small-19x5', rows);
    expect(rows.slice(0, 3)).toEqual(['Portico: terminal', 'too small (19x5);', 'need 20x6. q quits.']);
    fitsIn(rows, 19);
  });
});

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS_DIR, `consistency-${name}.png`), fullPage: true });
}

const query = (page: Page): URLSearchParams => new URL(page.url()).searchParams;

/** True once the sessions on screen are in employer order (the sort has come back from the daemon). */
async function employersSorted(page: Page): Promise<boolean> {
  const shown = await page.getByTestId('session-row').locator('td:nth-child(3)').allTextContents();
  return shown.length > 1 && shown.join('|') === [...shown].sort((a, b) => a.localeCompare(b)).join('|');
}

/** A signed-in dashboard page; `dialogs` records every browser dialog (dismissed), which the dashboard should never open. */
async function dashboard(ctx: TestContext): Promise<{ page: Page; dialogs: string[] }> {
  const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await signIn(page, daemon);
  return { page, dialogs };
}

describe('web dashboard at 1280 px', () => {
  it('keys: filter and selected key in the address survive a reload and Back; revoking asks in the page', async (ctx) => {
    const { page, dialogs } = await dashboard(ctx);
    await goToView(page, 'API keys');
    for (const [name, limit] of [['mobile app', '1000'], ['mobile web', ''], ['backoffice', '']]) {
      await page.getByLabel('Name').fill(name!);
      await page.getByLabel('Monthly limit').fill(limit!);
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByTestId('new-key').filter({ hasText: name! }).waitFor({ timeout: WAIT_MS });
      await page.getByRole('button', { name: 'Done' }).click();
    }
    await page.getByLabel('Search').fill('mobile');
    await expect.poll(() => page.locator('tbody tr').count(), { timeout: WAIT_MS }).toBe(2);
    expect(query(page).get('q')).toBe('mobile');
    await page.getByRole('button', { name: 'mobile app', exact: true }).click();
    await page.getByTestId('key-detail').filter({ hasText: '1000 calls' }).waitFor({ timeout: WAIT_MS });
    const appId = query(page).get('key');
    expect(appId).toMatch(/^key_[0-9a-f]{10}$/);
    await page.getByRole('button', { name: 'mobile web', exact: true }).click();
    await expect.poll(() => query(page).get('key'), { timeout: WAIT_MS }).not.toBe(appId);

    await page.reload();
    await page.getByTestId('key-detail').filter({ hasText: 'mobile web' }).waitFor({ timeout: WAIT_MS });
    expect(await page.getByLabel('Search').inputValue()).toBe('mobile');
    expect(await page.locator('tbody tr').count()).toBe(2);
    await shot(page, 'keys-1280');

    await page.goBack();
    await page.getByTestId('key-detail').filter({ hasText: 'mobile app' }).waitFor({ timeout: WAIT_MS });
    expect(query(page).get('key')).toBe(appId);
    await page.goForward();
    await page.getByTestId('key-detail').filter({ hasText: 'mobile web' }).waitFor({ timeout: WAIT_MS });

    // Revoke: the question is in the page; "Keep it" keeps it, "Revoke" revokes.
    const row = page.locator('tbody tr', { hasText: 'mobile web' });
    await row.getByRole('button', { name: 'revoke mobile web' }).click();
    const question = page.getByTestId('revoke-question');
    await question.waitFor({ timeout: WAIT_MS });
    expect(await question.textContent()).toMatch(/^Revoke mobile web \(key_[0-9a-f]{10}\) for good\? Calls with it get 401; this cannot be undone\./);
    await shot(page, 'keys-revoke-question-1280');
    await question.getByRole('button', { name: 'Keep it' }).click();
    await question.waitFor({ state: 'detached', timeout: WAIT_MS });
    expect(await row.locator('td').nth(1).textContent()).toBe('active');
    await row.getByRole('button', { name: 'revoke mobile web' }).click();
    await page.getByTestId('revoke-question').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => row.locator('td').nth(1).textContent(), { timeout: WAIT_MS }).toBe('revoked');
    expect(dialogs).toEqual([]);
  });

  it('infosessions: search, sort, page and the open session survive a reload; Back closes what was opened', async (ctx) => {
    const { page } = await dashboard(ctx);
    await goToView(page, 'Infosessions');
    await expect.poll(() => page.getByTestId('session-row').count(), { timeout: WAIT_MS }).toBe(50);
    await page.getByLabel('Search').fill('software');
    await expect.poll(() => page.locator('#sessions-heading + .summary').textContent(), { timeout: WAIT_MS }).toMatch(/^1–\d+ of \d+$/);
    await page.getByRole('button', { name: 'Employer' }).click();
    await expect.poll(() => query(page).get('sort'), { timeout: WAIT_MS }).toBe('employer');
    await expect.poll(() => employersSorted(page), { timeout: WAIT_MS }).toBe(true);
    const firstEmployer = (await page.getByTestId('session-row').first().locator('td').nth(2).textContent()) ?? '';
    await page.getByTestId('session-row').first().getByRole('button').click();
    await page.getByTestId('session-detail').waitFor({ timeout: WAIT_MS });
    expect(query(page).get('session')).toMatch(/^\d+$/);

    await page.reload();
    await page.getByTestId('session-detail').filter({ hasText: firstEmployer }).waitFor({ timeout: WAIT_MS });
    expect(await page.getByLabel('Search').inputValue()).toBe('software');
    expect(await page.locator('th[aria-sort="ascending"]').textContent()).toMatch(/^Employer/);
    await shot(page, 'infosessions-1280');

    await page.goBack();
    await page.getByTestId('session-detail').waitFor({ state: 'detached', timeout: WAIT_MS });
    expect(query(page).get('sort')).toBe('employer');
    // Back past the sort, then past the typing (one entry for the whole word, not one per letter).
    await page.goBack();
    await expect.poll(() => query(page).get('sort'), { timeout: WAIT_MS }).toBeNull();
    expect(query(page).get('q')).toBe('software');
    await page.goBack();
    await expect.poll(() => page.getByLabel('Search').inputValue(), { timeout: WAIT_MS }).toBe('');
  });

  it('backends and clusters: filter and the selected item survive a reload, and a link opens them', async (ctx) => {
    const { page } = await dashboard(ctx);
    await goToView(page, 'Backends');
    await page.getByLabel('Search').fill('payments');
    await expect.poll(() => page.locator('[data-testid^="backend-"]').count(), { timeout: WAIT_MS }).toBe(1);
    await page.getByRole('button', { name: 'orders', exact: true }).click();
    await page.getByTestId('backend-detail').filter({ hasText: LONG_ORIGIN }).waitFor({ timeout: WAIT_MS });
    await page.reload();
    await page.getByTestId('backend-detail').filter({ hasText: LONG_ORIGIN }).waitFor({ timeout: WAIT_MS });
    expect(await page.getByLabel('Search').inputValue()).toBe('payments');
    expect(await page.getByRole('heading', { name: 'State changes of orders' }).count()).toBe(1);
    await shot(page, 'backends-1280');

    // A shared link: straight to the cluster, filtered by health (a backend without beta_health is published HEALTHY).
    await page.goto(`${daemon.controlUrl}/clusters?health=HEALTHY&cluster=orders`);
    await page.getByTestId('cluster-detail').filter({ hasText: `${LONG_HOST}:8443` }).waitFor({ timeout: WAIT_MS });
    expect(await page.getByLabel('Health').inputValue()).toBe('HEALTHY');
    expect(await page.locator('[data-testid^="cluster-"][data-health]').count()).toBeGreaterThan(0);
    for (const health of await page.locator('[data-testid^="cluster-"][data-health]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-health')))) expect(health).toBe('HEALTHY');
    await shot(page, 'clusters-1280');
    await page.getByTestId('cluster-detail').getByRole('button', { name: 'Close the detail' }).click();
    await expect.poll(() => query(page).get('cluster'), { timeout: WAIT_MS }).toBeNull();
    await page.goBack();
    await page.getByTestId('cluster-detail').waitFor({ timeout: WAIT_MS });
  });

  it('deliveries, jobs and events: filters and the selected item survive a reload and Back; cancelling a job asks in the page', async (ctx) => {
    const store = new SqliteStore({ file: join(daemon.dataDir, 'portico.db') });
    try {
      // Due in an hour: the daemon's callback worker must not claim the row made DEAD below (its result would overwrite the status).
      const later = Date.now() + 3_600_000;
      const [dead] = await seedDeliveries(store, 2, 'https://hooks-a.invalid/x', null, Date.now(), later);
      await seedDeliveries(store, 1, 'https://hooks-b.invalid/y', null, Date.now(), later);
      await store.run(`UPDATE ingest_callback_outbox SET status = 'DEAD', attempts = 5, finished_at = ?, last_error = 'receiver answered HTTP 503' WHERE id = ?`, [Date.now(), dead!]);
      const [{ job }] = (await store.all<{ job: string }>('SELECT ingest_job_id AS job FROM ingest_callback_outbox WHERE id = ?', [dead!])) as [{ job: string }];
      const { page, dialogs } = await dashboard(ctx);

      // Deliveries: the filter and the open attempt log are in the address.
      await goToView(page, 'Deliveries');
      await page.getByLabel('Status').selectOption('DEAD');
      await page.getByLabel('URL contains').fill('hooks-a');
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await expect.poll(() => query(page).get('url'), { timeout: WAIT_MS }).toBe('hooks-a');
      expect(query(page).get('status')).toBe('DEAD');
      await page.getByText('1 matching').waitFor({ timeout: WAIT_MS });
      await page.getByTestId(`delivery-${dead}`).getByRole('button', { name: 'Attempts' }).click();
      await expect.poll(() => query(page).get('delivery'), { timeout: WAIT_MS }).toBe(dead);
      await page.reload();
      await page.getByRole('region', { name: `Attempts of delivery ${dead} to https://hooks-a.invalid/x` }).waitFor({ timeout: WAIT_MS });
      expect(await page.getByLabel('Status').inputValue()).toBe('DEAD');
      expect(await page.getByLabel('URL contains').inputValue()).toBe('hooks-a');
      await page.getByText('1 matching').waitFor({ timeout: WAIT_MS });
      await shot(page, 'deliveries-url-1280');
      await page.goBack();
      await page.getByTestId('attempt-log').waitFor({ state: 'detached', timeout: WAIT_MS });
      expect(query(page).get('status')).toBe('DEAD');

      // Jobs: the status filter and the open job are in the address.
      await goToView(page, 'Jobs');
      await page.getByLabel('Status').selectOption('SUCCEEDED');
      await expect.poll(() => query(page).get('status'), { timeout: WAIT_MS }).toBe('SUCCEEDED');
      await page.getByTestId(`job-${job}`).getByRole('button', { name: 'Details' }).click();
      await expect.poll(() => query(page).get('job'), { timeout: WAIT_MS }).toBe(job);
      await page.reload();
      await page.getByTestId('job-delivery').filter({ hasText: 'DEAD' }).waitFor({ timeout: WAIT_MS });
      expect(await page.getByLabel('Status').inputValue()).toBe('SUCCEEDED');
      await page.goBack();
      await page.getByTestId('job-delivery').waitFor({ state: 'detached', timeout: WAIT_MS });

      // Cancelling asks in the page (never the browser's confirm), and "Keep it running" keeps it.
      await store.run(`UPDATE ingest_jobs SET status = 'RUNNING' WHERE ingest_job_id = ?`, [job]);
      await page.getByLabel('Status').selectOption('');
      await page.getByTestId(`job-${job}`).getByRole('button', { name: `Cancel job ${job.slice(0, 8)}` }).click({ timeout: WAIT_MS });
      const question = page.getByTestId('cancel-question');
      await question.waitFor({ timeout: WAIT_MS });
      expect(await question.locator('p').textContent()).toBe(`Cancel job ${job} (DESCRIBE_PASS, RUNNING)? Its callback (if any) reports CANCELLED.`);
      await shot(page, 'jobs-cancel-question-1280');
      await question.getByRole('button', { name: 'Keep it running' }).click();
      await question.waitFor({ state: 'detached', timeout: WAIT_MS });
      expect(dialogs).toEqual([]);

      // Events: the level filter is in the address through the shared URL state.
      await goToView(page, 'Events');
      // No box ticked shows every level; ticking two keeps exactly those.
      await page.getByRole('checkbox', { name: 'error' }).check();
      await page.getByRole('checkbox', { name: 'warn' }).check();
      await expect.poll(() => query(page).get('level'), { timeout: WAIT_MS }).toBe('warn,error');
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor({ timeout: WAIT_MS });
      expect(await page.getByRole('checkbox', { name: 'info' }).isChecked()).toBe(false);
      expect(await page.getByRole('checkbox', { name: 'warn' }).isChecked()).toBe(true);
      expect(await page.getByRole('checkbox', { name: 'error' }).isChecked()).toBe(true);
      await shot(page, 'events-url-1280');
    } finally {
      await store.close();
    }
  });
});
