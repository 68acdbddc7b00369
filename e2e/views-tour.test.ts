// A tour of every view of both consoles against one daemon holding real data (the sample
// sessions, two keys, three jobs, a DELIVERED and a DEAD callback, a healthy, an unreachable and
// an unchecked backend): in a small and a large terminal or window, each view keeps its frame.
// Every screen is kept in e2e/artifacts/tour-* for a person to look at before an issue closes.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from '../daemon/src/ingest/testing/https-receiver.js';
import { launchChromium, openPage } from './browser.js';
import { goToView, navLayout, openTui, signIn, WAIT_MS, type TuiPane } from './consoles-kit.js';
import { ARTIFACTS_DIR, freePort, REPO_ROOT, startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { tenantCall } from './ingest-api.js';

/** Text no screen should show: a leaked exception or a value the code failed to format. */
const TUI_BROKEN = /\bError\b|undefined|NaN|\[object Object\]/;
const WEB_BROKEN = /undefined|NaN|\[object Object\]/;

let daemon: DaemonHandle;
let browser: Browser;
let tls: TestTls;
let receiver: TestReceiver;
let configDir: string;

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'portico-e2e-tour-'));
  const extra = join(configDir, 'tour.hcl');
  writeFileSync(extra, backendsConfig(await freePort()));
  tls = makeTestTls();
  receiver = await startReceiver(tls);
  [daemon, browser] = await Promise.all([
    startDaemon({
      args: ['-f', join(REPO_ROOT, 'config', 'portico.hcl'), '-f', extra],
      env: {
        SERVICE_CALLBACK_CA_FILE: tls.caFile,
        SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1',
        SERVICE_CALLBACK_POLL_INTERVAL_S: '0.1',
        SERVICE_INGEST_POLL_INTERVAL_S: '0.1',
        // Two quick attempts, then DEAD.
        SERVICE_CALLBACK_RETRY_SCHEDULE: '0s,200ms',
      },
    }),
    launchChromium(),
  ]);
  await seed();
});

afterAll(async () => {
  await browser?.close();
  await daemon?.dispose();
  await receiver?.close();
  tls?.dispose();
  if (configDir) rmSync(configDir, { recursive: true, force: true });
});

/** Besides `services` (config/portico.hcl, healthy): `billing` on a port nobody listens on, checked, so it turns unhealthy; `legacy`, never checked. */
function backendsConfig(deadPort: number): string {
  return `server "portico" {
  endpoint "/billing/**" {
    proxy {
      backend = "billing"
    }
  }
  endpoint "/legacy/**" {
    proxy {
      backend = "legacy"
    }
  }
}

definitions {
  backend "billing" {
    origin = "http://127.0.0.1:${deadPort}"
    beta_health {
      path              = "/health"
      interval          = "300ms"
      timeout           = "300ms"
      failure_threshold = 1
    }
  }
  backend "legacy" {
    origin = "https://legacy-orders.eu-west-1.internal.example.com:8443"
  }
}
`;
}

/** Keys, jobs and callbacks through the daemon's public APIs; the sessions are the sample CSV it loads by default. */
async function seed(): Promise<void> {
  const mobile = await mutate<{ secret: string }>('keys.create', { name: 'mobile app', monthlyLimit: 1000 });
  const partner = await mutate<{ key: { id: string } }>('keys.create', { name: 'partner portal' });
  await mutate('keys.ban', { id: partner.key.id });
  expect((await fetch(`${daemon.servicesUrl}/v2/resources/infosessions.json?key=${mobile.secret}`)).status).toBe(200);

  const json = { 'Content-Type': 'application/json' };
  const dataset = await tenantCall(daemon, '/api/v1/datasets', { method: 'POST', headers: json, body: JSON.stringify({ name: 'shop' }) });
  expect(dataset.status).toBe(201);
  const datasetId = dataset.body.dataset_id as string;
  const createJob = (body: object) => tenantCall(daemon, '/api/v1/ingest-jobs', { method: 'POST', headers: json, body: JSON.stringify({ dataset_id: datasetId, ...body }) });
  // One after another, so the newest (listed first) is the upload whose callback goes DEAD.
  await finished(await createJob({ job_kind: 'RELATION_PASS' }));
  await finished(await createJob({ job_kind: 'DESCRIBE_PASS', callback: { url: `${receiver.url}/hooks/describe`, secret: 'tour-secret-0123456789abcdef', headers: { 'X-Trace': 'tour' } } }));
  const form = new FormData();
  form.append('file', new Blob(['id,name,city\n1,Ada,London\n2,Brian,Paris\n'], { type: 'text/csv' }), 'customers.csv');
  form.append('callback_url', `https://127.0.0.1:${await freePort()}/hooks/unreachable`);
  await finished(await tenantCall(daemon, `/api/v1/datasets/${datasetId}/files:async`, { method: 'POST', body: form }));

  const deliveries = async () => (await query<{ items: Array<{ status: string }> }>('deliveries.list', { limit: 10 })).items.map((d) => d.status).sort().join();
  await waitUntil(async () => (await deliveries()) === 'DEAD,DELIVERED', WAIT_MS, () => 'one DEAD and one DELIVERED callback');
  const billing = async () => (await query<Array<{ name: string; health: { state: string } }>>('backends.list')).find((b) => b.name === 'billing')?.health.state;
  await waitUntil(async () => (await billing()) === 'unhealthy', WAIT_MS, () => 'billing unhealthy');
}

async function finished(created: { status: number; body: any }): Promise<void> {
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  const id = created.body.ingest_job_id as string;
  await waitUntil(async () => ['SUCCEEDED', 'FAILED'].includes((await tenantCall(daemon, `/api/v1/ingest-jobs/${id}`)).body.status), WAIT_MS, () => `job ${id} to finish`);
}

/** The control API over plain HTTP, as any client could call it. */
async function control<T>(path: string, input: unknown, kind: 'query' | 'mutation'): Promise<T> {
  const address = kind === 'query' && input !== undefined ? `?input=${encodeURIComponent(JSON.stringify(input))}` : '';
  const res = await fetch(`${daemon.controlUrl}/trpc/${path}${address}`, {
    method: kind === 'query' ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${daemon.token}`, 'Content-Type': 'application/json' },
    ...(kind === 'mutation' ? { body: JSON.stringify(input) } : {}),
  });
  const body = (await res.json()) as { result?: { data: T }; error?: unknown };
  if (!body.result) throw new Error(`${path}: ${JSON.stringify(body.error)}`);
  return body.result.data;
}
const query = <T>(path: string, input?: unknown) => control<T>(path, input, 'query');
const mutate = <T = unknown>(path: string, input: unknown) => control<T>(path, input, 'mutation');

function keep(name: string, content: string): void {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  writeFileSync(join(ARTIFACTS_DIR, name), content);
}

/** A pattern that matches when every one of `patterns` does, in any order. */
function allOf(...patterns: RegExp[]): RegExp {
  return new RegExp(`^${patterns.map((p) => `(?=[\\s\\S]*(?:${p.source}))`).join('')}`);
}

/** The source files of a views folder, read as text: the e2e build compiles neither console. */
function viewSources(...folder: string[]): Array<{ file: string; text: string }> {
  const dir = join(REPO_ROOT, ...folder);
  return readdirSync(dir).map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8') }));
}

// ---------------------------------------------------------------------------------------------
// Terminal console

/** Per view id of console-tui/src/views/view-registry.ts: what shows once its data is in, and an item's detail where the view has one. */
const TUI_VIEWS: Record<string, { ready: RegExp; detail?: { keys: string[]; ready: RegExp } }> = {
  status: { ready: allOf(/COMPONENTS/, /webhooks .*1 DEAD/) },
  events: { ready: allOf(/ EVENTS/, /delivery\.state/) },
  config: { ready: allOf(/ CONFIG/, /tour\.hcl/) },
  backends: { ready: allOf(/ BACKENDS/, /billing +✗ unhealthy/, /services +● healthy/) },
  clusters: { ready: allOf(/ CLUSTERS/, /billing/, /legacy/) },
  infosessions: { ready: /INFOSESSIONS {2}363 sessions/, detail: { keys: ['Enter'], ready: / {2}#\d+\n \d{4}-\d\d-\d\d / } },
  keys: { ready: allOf(/API KEYS/, /mobile app/, /partner portal .*banned/) },
  jobs: { ready: allOf(/ JOBS {2}3 /, /PARSE_AND_INGEST/), detail: { keys: ['Enter'], ready: /delivery ✗ DEAD/ } },
  deliveries: { ready: allOf(/ DELIVERIES {2}2 matching/, /✗ DEAD/, /● DELIVERED/), detail: { keys: ['Enter'], ready: /#2 +(\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d +no answer/ } },
};

/** The ids of VIEWS in console-tui/src/views/view-registry.ts, in tab order. */
function registeredTuiViews(): string[] {
  const sources = viewSources('console-tui', 'src', 'views');
  const registry = sources.find((s) => s.file === 'view-registry.ts')?.text ?? '';
  const names = /VIEWS: readonly ViewDefinition\[\] = \[([^\]]*)\]/.exec(registry)?.[1]?.split(',').map((n) => n.trim()) ?? [];
  const ids = new Map(sources.flatMap(({ text }) => [...text.matchAll(/export const (\w+): ViewDefinition = \{\s*id: '([^']+)'/g)].map((m) => [m[1]!, m[2]!] as const)));
  return names.map((name) => ids.get(name) ?? `(no id found for ${name})`);
}

interface TuiStop {
  /** Artifact name: the view id, or `<id>-detail`. */
  name: string;
  view: string;
  /** From the stop before: `:<id>` Enter, or the keys that open the detail. */
  keys: string[];
  ready: RegExp;
}

const TUI_STOPS: TuiStop[] = Object.entries(TUI_VIEWS).flatMap(([id, { ready, detail }]) => [
  { name: id, view: id, keys: [`:${id}`, 'Enter'], ready },
  ...(detail ? [{ name: `${id}-detail`, view: id, keys: detail.keys, ready: detail.ready }] : []),
]);

const TUI_SIZES = [
  { columns: 80, rows: 24 },
  { columns: 120, rows: 30 },
];

/** Global hints lead the bottom line; the help replaces them with its own. */
const HINTS = / \? help {2}: command {2}q quit/;
const HELP_HINTS = / \? help .*Esc close help/;

/** The pane once two captures 150 ms apart agree (within 5 s), so a capture is not one frame early. */
async function settled(pane: TuiPane): Promise<string[]> {
  let last = pane.rows();
  for (const deadline = Date.now() + 5000; Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 150));
    const now = pane.rows();
    if (now.join('\n') === last.join('\n')) return now;
    last = now;
  }
  return last;
}

/**
 * A settled pane on which `done` holds (settled again until it does, within 10 s). Keys just sent
 * may not have been read yet, and the frame before them can already look right: the console
 * opens on the first stop's view, so its wait passes before `:status` is typed, and a slow machine
 * can then show the command line, still open, in two captures in a row.
 */
async function settledOn(pane: TuiPane, done: (screen: string[]) => boolean): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const screen = await settled(pane);
    if (done(screen) || Date.now() > deadline) return screen;
  }
}

/** The frame: exactly the terminal's rows, none wider than it, the header on top, the tabs, the hint line at the bottom. */
function expectFrame(screen: string[], columns: number, rows: number, view: string | null, hints: RegExp): void {
  const text = screen.join('\n');
  expect(screen, text).toHaveLength(rows);
  for (const row of screen) expect(Array.from(row).length, `wider than ${columns} columns: ${row}`).toBeLessThanOrEqual(columns);
  expect(screen[0], text).toMatch(/^ Portico ● connected /);
  if (view) expect(screen[1], text).toContain(`[${view}]`);
  expect(screen.at(-1), text).toMatch(new RegExp(`^${hints.source}`));
  expect(text).not.toMatch(TUI_BROKEN);
}

describe('terminal console', () => {
  it('tours every view the registry lists', () => {
    expect(Object.keys(TUI_VIEWS)).toEqual(registeredTuiViews());
  });

  for (const { columns, rows } of TUI_SIZES) {
    it(`${columns}x${rows}: every view, an item's detail and the help keep the frame`, async () => {
      const pane = openTui(`tour-${columns}x${rows}`, daemon, columns, rows);
      try {
        await pane.waitFor(/● connected/);
        for (const stop of TUI_STOPS) {
          pane.keys(...stop.keys);
          // The view and its key hints are drawn one after the other: wait for the whole frame.
          await pane.waitFor(allOf(stop.ready, new RegExp(`\\[${stop.view}\\]`), HINTS));
          // A view's own hints join the global ones a frame later: capture a settled screen, with the hints at the bottom.
          const screen = await settledOn(pane, (rows) => HINTS.test(rows.at(-1) ?? '') && stop.ready.test(rows.join('\n')));
          keep(`tour-tui-${stop.name}-${columns}x${rows}.txt`, `${screen.join('\n')}\n`);
          expectFrame(screen, columns, rows, stop.view, HINTS);
        }
        pane.keys('?');
        const help = await pane.waitFor(allOf(/Global keys/, HELP_HINTS));
        keep(`tour-tui-help-${columns}x${rows}.txt`, `${help.join('\n')}\n`);
        expectFrame(help, columns, rows, null, HELP_HINTS);
      } finally {
        pane.close();
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Web dashboard

interface WebView {
  /** Navigation name and page heading. */
  title: string;
  /** Resolves once the view shows its data. */
  ready(page: Page): Promise<unknown>;
  /** Opens one item's detail; resolves once it shows. */
  detail?(page: Page): Promise<unknown>;
}

const shown = (page: Page, testId: string) => page.getByTestId(testId).first().waitFor({ timeout: WAIT_MS });
const openRow = async (page: Page, name: string, testId: string) => {
  await page.getByRole('button', { name, exact: true }).click();
  await shown(page, testId);
};

/** Every view of the dashboard's navigation, in its order (console-web/src/views/*.view.tsx). */
const WEB_VIEWS: WebView[] = [
  { title: 'Status', ready: (p) => p.getByTestId('dead-count').filter({ hasText: /^1$/ }).waitFor({ timeout: WAIT_MS }) },
  { title: 'Config', ready: (p) => shown(p, 'config-source') },
  {
    title: 'Backends',
    ready: (p) => p.locator('[data-testid="backend-billing"][data-state="unhealthy"]').waitFor({ timeout: WAIT_MS }),
    detail: (p) => openRow(p, 'billing', 'backend-detail'),
  },
  { title: 'Clusters', ready: (p) => shown(p, 'cluster-legacy'), detail: (p) => openRow(p, 'legacy', 'cluster-detail') },
  {
    title: 'Infosessions',
    ready: (p) => expect.poll(() => p.getByTestId('session-row').count(), { timeout: WAIT_MS }).toBe(50),
    detail: async (p) => {
      // A session low in the list: at any width its detail must show where the reader is.
      await p.getByTestId('session-row').nth(40).getByRole('button').click();
      await shown(p, 'session-detail');
      await expectInWindow(p, 'session-detail');
    },
  },
  { title: 'API keys', ready: (p) => p.locator('tbody tr', { hasText: 'partner portal' }).waitFor({ timeout: WAIT_MS }), detail: (p) => openRow(p, 'mobile app', 'key-detail') },
  {
    title: 'Jobs',
    ready: (p) => p.getByText('3 jobs').waitFor({ timeout: WAIT_MS }),
    detail: async (p) => {
      await p.getByRole('button', { name: 'Details' }).first().click();
      await p.getByTestId('job-delivery').filter({ hasText: 'DEAD' }).waitFor({ timeout: WAIT_MS });
    },
  },
  {
    title: 'Deliveries',
    ready: (p) => p.getByText('2 matching').waitFor({ timeout: WAIT_MS }),
    detail: async (p) => {
      await p.locator('tbody tr', { hasText: 'DEAD' }).getByRole('button', { name: 'Attempts' }).click();
      await p.getByTestId('attempt-log').getByRole('cell', { name: 'no answer' }).first().waitFor({ timeout: WAIT_MS });
    },
  },
  { title: 'Events', ready: (p) => p.getByRole('list', { name: 'Daemon events' }).getByText('delivery.state').first().waitFor({ timeout: WAIT_MS }) },
];

/** The navigation names the dashboard's view files declare, in their order. */
function registeredWebViews(): string[] {
  return viewSources('console-web', 'src', 'views')
    .filter((s) => s.file.endsWith('.view.tsx'))
    .map((s) => /title: '([^']+)', order: (\d+)/.exec(s.text))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[2]) - Number(b[2]))
    .map((m) => m[1]!);
}

interface WebSize {
  width: number;
  height: number;
  /** Below 64rem the names form one row that scrolls sideways (console-web/src/styles/shell.css). */
  navScrolls: boolean;
}

const WEB_SIZES: WebSize[] = [
  { width: 1280, height: 800, navScrolls: false },
  { width: 800, height: 900, navScrolls: true },
];

/** A nav entry's view title (Deliveries' name carries its DEAD badge). */
const titleOf = (text: string): string => WEB_VIEWS.find((v) => text.startsWith(v.title))?.title ?? text;
const slug = (title: string): string => title.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/**
 * No sideways scroll, every view's name in the navigation, no broken text, no console error.
 * Wide, the names share one row, whole; narrow, a name past the edge comes into view when scrolled to.
 */
async function expectPageFits(page: Page, name: string, size: WebSize, problems: readonly string[]): Promise<void> {
  // e2e code has no DOM types: the root element comes from a locator.
  const { scrollWidth, clientWidth } = await page.locator('html').evaluate((root) => ({ scrollWidth: root.scrollWidth, clientWidth: root.clientWidth }));
  expect(scrollWidth, `${name} scrolls sideways`).toBeLessThanOrEqual(clientWidth);
  const nav = await navLayout(page);
  expect(nav.titles.map(titleOf), name).toEqual(WEB_VIEWS.map((v) => v.title));
  if (!size.navScrolls) expect(nav, `${name}: the navigation`).toMatchObject({ cut: [], rows: 1 });
  for (const cut of nav.cut) {
    await page.getByRole('navigation', { name: 'Dashboard views' }).getByRole('link', { name: new RegExp(`^${titleOf(cut)}\\b`) }).scrollIntoViewIfNeeded();
    expect((await navLayout(page)).cut, `${name}: ${titleOf(cut)} cannot be scrolled into view in the navigation`).not.toContain(cut);
  }
  expect(await page.locator('body').innerText(), name).not.toMatch(WEB_BROKEN);
  expect(problems, name).toEqual([]);
}

/** The opened detail's top is in the window, and it is as tall as what it says, not as the list beside it. */
async function expectInWindow(page: Page, testId: string): Promise<void> {
  const box = await page.getByTestId(testId).boundingBox();
  const viewport = page.viewportSize();
  expect(box, testId).not.toBeNull();
  expect(box!.y, `${testId}: opened out of sight`).toBeGreaterThanOrEqual(-1);
  expect(box!.y, `${testId}: opened out of sight`).toBeLessThan(viewport!.height / 2);
  expect(box!.height, `${testId}: taller than the window`).toBeLessThanOrEqual(viewport!.height);
}

/**
 * What a reader must be able to read in every view: no table cut at the edge of its card (a
 * column only reachable by scrolling inside the table), no status glyph on a line apart from its
 * word, no event type running over its column.
 */
async function expectReadable(page: Page, name: string): Promise<void> {
  const found = await page.locator('body').evaluate((body) => {
    const doc = body.ownerDocument;
    /** How far apart the text's lines are, and where its rightmost line ends. */
    const lines = (el: typeof body) => {
      const range = doc.createRange();
      range.selectNodeContents(el);
      const rects = [...range.getClientRects()];
      if (rects.length === 0) return { spread: 0, right: 0 };
      const tops = rects.map((r) => r.top);
      return { spread: Math.max(...tops) - Math.min(...tops), right: Math.max(...rects.map((r) => r.right)) };
    };
    const label = (el: typeof body) => (el.getAttribute('data-testid') ?? el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60);
    const statuses = [...body.querySelectorAll<typeof body>('.badge, [class*="tone-"]')].filter((el) => /^[●✗◐○◌◑–·!✓?] ?[A-Za-z_]+$/.test((el.textContent ?? '').trim()));
    return {
      cutTables: [...body.querySelectorAll<typeof body>('.table-scroll')].filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => `${label(el.querySelector<typeof body>('table') ?? el)}: ${el.scrollWidth} px wide in ${el.clientWidth}`),
      // Lines more than half a line apart: the glyph and the word were laid out on two lines.
      splitStatuses: statuses.filter((el) => lines(el).spread > 8).map((el) => el.textContent ?? ''),
      spilledTypes: [...body.querySelectorAll<typeof body>('.event-type')].filter((el) => lines(el).spread > 8 || lines(el).right > el.getBoundingClientRect().right + 0.5).map((el) => el.textContent ?? ''),
    };
  });
  expect(found, name).toEqual({ cutTables: [], splitStatuses: [], spilledTypes: [] });
}

describe('web dashboard', () => {
  it('tours every view the dashboard declares', () => {
    expect(WEB_VIEWS.map((v) => v.title)).toEqual(registeredWebViews());
  });

  for (const size of WEB_SIZES) {
    const { width, height } = size;
    it(`${width}x${height}: every view and an item's detail fit, with no sideways scroll or console error`, async (ctx) => {
      const page = await openPage(browser, ctx, { width, height, diagnostics: () => daemon.logs() });
      const problems: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && problems.push(`[console.error] ${m.text()}`)));
      page.on('pageerror', (e) => problems.push(`[pageerror] ${e.message}`));
      const look = async (name: string) => {
        mkdirSync(ARTIFACTS_DIR, { recursive: true });
        await page.screenshot({ path: join(ARTIFACTS_DIR, `tour-web-${name}-${width}.png`), fullPage: true });
        await expectPageFits(page, name, size, problems);
        await expectReadable(page, name);
      };
      await signIn(page, daemon);
      for (const view of WEB_VIEWS) {
        await goToView(page, view.title);
        await view.ready(page);
        await look(slug(view.title));
        if (view.detail) {
          await view.detail(page);
          await look(`${slug(view.title)}-detail`);
        }
      }
    });
  }
});
