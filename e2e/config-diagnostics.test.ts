// A broken save as an operator meets it: `portico config check`, the terminal console in tmux
// and the web dashboard in Chromium all put the cause first, as `file:line,col`, with the line
// as saved and a caret under the problem; more problems than fit read "+N more" and open.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from './browser.js';
import { goToView, openTui, signIn, WAIT_MS } from './consoles-kit.js';
import { changed, daemonOnConfigCopy, gatewayConfigCopy, PROBE_SECRET, type GatewayConfigCopy } from './gateway-e2e-config.js';
import { ARTIFACTS_DIR, runPortico } from './harness.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The portico.hcl copy with the quote after `base_path = "/v2` left open: where it is, and the line as saved. */
function unclosedQuote(copy: GatewayConfigCopy): { line: number; column: number; text: string } {
  copy.edit((t) => changed(t, t.replace('base_path = "/v2"', 'base_path = "/v2')));
  const text = '    base_path = "/v2';
  const line = readFileSync(copy.main, 'utf8').split('\n').indexOf(text) + 1;
  expect(line).toBeGreaterThan(0);
  return { line, column: text.indexOf('"') + 1, text };
}

/** Four arguments the schema does not know, one per block: four problems, in file order. */
function fourUnknownArguments(copy: GatewayConfigCopy): void {
  copy.edit((t) => changed(t, t.replace('base_path = "/v2"', 'base_path = "/v2"\n    bogus_one = 1').replace('base_path      = "/api/v1"', 'base_path      = "/api/v1"\n    bogus_two = 2').replace('document_root = "www"', 'document_root = "www"\n    bogus_three = 3').replace('allowed_methods = ["GET", "HEAD"]\n    response', 'allowed_methods = ["GET", "HEAD"]\n    bogus_four = 4\n    response')));
}

describe('portico config check', () => {
  it('prints the cause of an unclosed quote first and alone, with the line as saved and a caret under the string', async () => {
    const copy = await gatewayConfigCopy();
    cleanups.push(() => copy.dispose());
    const { line, column, text } = unclosedQuote(copy);
    const r = await runPortico(['config', 'check', copy.main, copy.probe]);
    expect(r.code).toBe(1);
    const out = r.stderr.trimEnd().split('\n');
    expect(out[0]).toBe(`${copy.main}:${line},${column}-${text.length + 1}: Invalid multi-line string; This string has no closing quote (") on its line. Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the "heredoc" multi-line template syntax.`);
    const gutter = String(line + 1).length;
    expect(out.slice(1)).toEqual([
      `  ${String(line - 1).padStart(gutter)} │   api "resources" {`,
      `  ${String(line).padStart(gutter)} │ ${text}`,
      `  ${' '.repeat(gutter)} │ ${' '.repeat(column - 1)}^~~~`,
      `  ${String(line + 1).padStart(gutter)} │`,
    ]);
  });

  it('prints every problem with its lines, set apart by a blank line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-check-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'two.hcl');
    writeFileSync(file, 'server {\n  hostz = ["*:8080"]\n  endpoint "/a" {\n    bogus = 1\n  }\n}\n');
    const r = await runPortico(['config', 'check', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        `${file}:2,3-8: Unsupported argument; An argument named "hostz" is not expected here.`,
        '  1 │ server {',
        '  2 │   hostz = ["*:8080"]',
        '    │   ^~~~~',
        '  3 │   endpoint "/a" {',
        '',
        `${file}:4,5-10: Unsupported argument; An argument named "bogus" is not expected here.`,
        '  3 │   endpoint "/a" {',
        '  4 │     bogus = 1',
        '    │     ^~~~~',
        '  5 │   }',
        '',
      ].join('\n'),
    );
  });
});

describe('consoles', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('the terminal console shows the cause first with the saved line and a caret, "+N more", and every problem on d (80x24, 120x30)', async () => {
    const { daemon, copy } = await daemonOnConfigCopy(cleanups);
    const tui = openTui('diagnostics', daemon, 80, 24);
    cleanups.push(() => tui.close());
    await tui.waitFor(/● connected/);
    tui.keys(':config', 'Enter');
    await tui.waitFor(/✓ applied \(start\)/);

    const { line, column, text } = unclosedQuote(copy);
    const gutter = String(line + 1).length;
    const at = `portico\\.hcl:${line},${column}-${text.length + 1}: Invalid multi-line string`;
    let rows = await tui.waitFor(new RegExp(`✗ rejected \\(file\\)[^\\n]*\\n {3}${at}`));
    const first = rows.findIndex((r) => new RegExp(`^ {3}${at}`).test(r));
    expect(rows.slice(first + 1, first + 5)).toEqual([
      `     ${String(line - 1).padStart(gutter)} │   api "resources" {`,
      `     ${String(line).padStart(gutter)} │ ${text}`,
      `     ${' '.repeat(gutter)} │ ${' '.repeat(column - 1)}^~~~`,
      `     ${String(line + 1).padStart(gutter)} │`,
    ]);
    expect(rows.join('\n')).not.toMatch(/Unclosed configuration block|more · d: all problems/);
    for (const row of rows) expect(Array.from(row).length).toBeLessThanOrEqual(80);
    saveCapture('tui-unclosed-quote-80x24', rows);

    copy.edit((t) => changed(t, t.replace('base_path = "/v2', 'base_path = "/v2"')));
    await tui.waitFor(/✓ applied \(file\)/);
    fourUnknownArguments(copy);
    rows = await tui.waitFor(/\+3 more · d: all problems/);
    // In file order: the files block comes first.
    expect(rows.join('\n')).toMatch(/ {3}portico\.hcl:\d+,5-16: Unsupported argument; An argument named "bogus_three"/);
    saveCapture('tui-four-problems-80x24', rows);
    tui.keys('d');
    rows = await tui.waitFor(/4 problems of the last reload \(file\), cause first; d: back/);
    expect(rows.join('\n')).toMatch(/portico\.hcl:\d+,5-16: Unsupported argument;[\s\S]*│ {5}\^~{10}\n[\s\S]*portico\.hcl:\d+,5-15: Unsupported argument;/);
    for (const row of rows) expect(Array.from(row).length).toBeLessThanOrEqual(80);
    saveCapture('tui-problems-pane-80x24', rows);
    tui.keys('j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'j');
    rows = await tui.waitFor(/bogus_two/);
    saveCapture('tui-problems-pane-scrolled-80x24', rows);

    // A wider terminal shows more of the same, still cut to its width.
    const wide = openTui('diagnostics-wide', daemon, 120, 30);
    cleanups.push(() => wide.close());
    await wide.waitFor(/● connected/);
    wide.keys(':config', 'Enter');
    rows = await wide.waitFor(/\+3 more · d: all problems[\s\S]* d problems/);
    expect(rows.join('\n')).toMatch(/ {3}portico\.hcl:\d+,5-16: Unsupported argument; An argument named "bogus_three" is not expected here\.\n.*\n.*bogus_three = 3\n.*│ {5}\^~{10}\n/);
    for (const row of rows) expect(Array.from(row).length).toBeLessThanOrEqual(120);
    saveCapture('tui-four-problems-120x30', rows);
  });

  it('the web dashboard shows the cause first with the saved lines and a caret, and opens "+N more" (1280 px)', async (ctx) => {
    const { daemon, copy } = await daemonOnConfigCopy(cleanups);
    const page = await openPage(browser, ctx, { diagnostics: () => daemon.logs() });
    await signIn(page, daemon);
    await goToView(page, 'Config');
    await page.getByTestId('last-reload').waitFor({ timeout: WAIT_MS });

    const { line, column, text } = unclosedQuote(copy);
    const diagnostics = page.getByTestId('diagnostics');
    await expect.poll(() => diagnostics.textContent(), { timeout: WAIT_MS }).toContain(`portico.hcl:${line},${column}-${text.length + 1}: Invalid multi-line string`);
    expect(await diagnostics.locator('li').count()).toBe(1);
    const gutter = String(line + 1).length;
    expect(await diagnostics.locator('pre.excerpt').textContent()).toBe(
      [`${String(line - 1).padStart(gutter)} │   api "resources" {`, `${String(line).padStart(gutter)} │ ${text}`, `${' '.repeat(gutter)} │ ${' '.repeat(column - 1)}^~~~`, `${String(line + 1).padStart(gutter)} │`, ''].join('\n'),
    );
    await page.screenshot({ path: artifact('web-unclosed-quote-1280.png'), fullPage: true });

    copy.edit((t) => changed(t, t.replace('base_path = "/v2', 'base_path = "/v2"')));
    await expect.poll(() => page.getByTestId('last-reload').textContent(), { timeout: WAIT_MS }).toMatch(/applied\s*file at/);
    fourUnknownArguments(copy);
    const more = page.getByTestId('more-diagnostics');
    await more.waitFor({ timeout: WAIT_MS });
    expect(await more.locator('summary').textContent()).toBe('+1 more');
    expect(await diagnostics.locator(':scope > ol > li').count()).toBe(3);
    expect(await more.locator('li').isVisible()).toBe(false);
    await more.locator('summary').click();
    await expect.poll(() => more.locator('li').isVisible()).toBe(true);
    expect(await more.locator('li').textContent()).toMatch(/Unsupported argument; An argument named "bogus_[a-z]+" is not expected here\..*\^~+/s);
    expect(await page.content()).not.toContain(PROBE_SECRET);
    await page.screenshot({ path: artifact('web-four-problems-1280.png'), fullPage: true });
  });
});

function artifact(name: string): string {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return join(ARTIFACTS_DIR, name);
}

/** The pane as text in e2e/artifacts (not committed), to look at after a run. */
function saveCapture(name: string, rows: string[]): void {
  writeFileSync(artifact(`${name}.txt`), `${rows.join('\n')}\n`);
}
