import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestContext } from 'vitest';
import { ARTIFACTS_DIR } from './harness.js';

/** Debian's Chromium; PORTICO_CHROMIUM points elsewhere when needed. */
export const CHROMIUM_PATH = process.env.PORTICO_CHROMIUM ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not at ${CHROMIUM_PATH}. Install it (apt-get install -y chromium) or set PORTICO_CHROMIUM.`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface PageOptions {
  width?: number;
  height?: number;
  /** More text for the failure log, e.g. the daemon's output. */
  diagnostics?: () => string;
}

/**
 * A page in a fresh browser context (its own sessionStorage), closed when the test ends. When
 * the test fails, `e2e/artifacts/<test name>.png` and `.log` (browser console + diagnostics) are kept.
 */
export async function openPage(browser: Browser, test: TestContext, { width = 1280, height = 800, diagnostics }: PageOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const consoleLines: string[] = [];
  page.on('console', (m) => consoleLines.push(`[console.${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.stack ?? e.message}`));
  test.onTestFinished(async ({ task }) => {
    if (task.result?.state === 'fail') {
      const base = join(ARTIFACTS_DIR, artifactName(task.name));
      mkdirSync(ARTIFACTS_DIR, { recursive: true });
      await page.screenshot({ path: `${base}.png`, fullPage: true }).catch((e: unknown) => consoleLines.push(`[screenshot failed] ${String(e)}`));
      writeFileSync(`${base}.log`, [`url: ${page.url()}`, ...consoleLines, '', diagnostics?.() ?? ''].join('\n'));
    }
    await context.close();
  });
  return page;
}

/** A test name as a file name: `says disconnected when…` → `says-disconnected-when`. */
export function artifactName(testName: string): string {
  return testName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 100) || 'test';
}
