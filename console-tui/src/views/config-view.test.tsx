// The Config view against the daemon's real control server over a real ConfigManager and real files.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startApi } from '../../../daemon/src/gateway/control/testing/control-api.js';
import { configText, tempDir } from '../../../daemon/src/gateway/reload/testing/config-files.js';
import { createControlClient } from '../control/control-client.js';
import { LiveStore } from '../live/live-store.js';
import { App } from '../shell/app.js';
import { renderInTerminal, type TestTerminal } from '../testing/terminal.js';
import { configView } from './config-view.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SECRET_BACKEND = 'definitions {\n  backend "api" {\n    origin     = "http://127.0.0.1:1"\n    basic_auth = "ops:s3cr3t"\n  }\n}\n';

async function consoleOn(files: string[] | null, size = { columns: 80, rows: 24 }): Promise<TestTerminal> {
  const fixture = await startApi(files);
  const source = createControlClient({ url: fixture.url, token: fixture.token, retryDelayMs: () => 100 });
  const store = new LiveStore(source, await source.fetchStatus());
  store.start();
  const term = renderInTerminal(<App store={store} source={source} views={[configView]} color={false} />, size);
  cleanups.push(() => source.close(), () => store.stop(), () => term.instance.unmount());
  return term;
}

function fits(term: TestTerminal, columns = 80, rows = 24): void {
  expect(term.screen()).toHaveLength(rows);
  for (const line of term.screen()) expect(Array.from(line).length, line).toBeLessThanOrEqual(columns);
}

function portico(): string {
  const file = join(tempDir(), 'portico.hcl');
  writeFileSync(file, configText(['/a']) + SECRET_BACKEND);
  return file;
}

describe('config view', () => {
  it('lists routes with the access controls guarding them after inheritance, with a (80x24, no secrets)', async () => {
    const file = join(tempDir(), 'portico.hcl');
    const guarded = `  access_control = ["ops"]\n  api {\n    base_path = "/api"\n    access_control = ["tok"]\n    endpoint "/items" {\n      beta_required_permission = "read"\n      response {\n        body = "x"\n      }\n    }\n  }\n  endpoint "/public" {\n    disable_access_control = ["ops"]\n    response {\n      body = "x"\n    }\n  }\n`;
    const definitions = 'definitions {\n  basic_auth "ops" {\n    password = "pa55word-secret"\n    realm = "ops"\n  }\n  jwt "tok" {\n    signature_algorithm = "HS256"\n    key = "hs-key-secret"\n  }\n}\n';
    writeFileSync(file, configText(['/a'], guarded) + definitions);
    const term = await consoleOn([file]);
    await expect.poll(() => term.text()).toContain('✓ applied (start)');
    await term.press('a');
    await expect.poll(() => term.text()).toContain('routes (4, 1 open) and their access controls');
    expect(term.text()).toContain('ops (basic_auth): password, realm "ops"');
    expect(term.text()).toContain('tok (jwt): Authorization bearer, HS256 key');
    expect(term.text()).toMatch(/\/a\s+endpoint\s+\*\s+ops\n/);
    expect(term.text()).toMatch(/\/api\/items\s+endpoint\s+\*\s+ops, tok · permission read/);
    // The api's paths no route takes: 404 once its guards pass.
    expect(term.text()).toMatch(/\/api\/\*\*\s+unrouted\s+\*\s+ops, tok\n/);
    expect(term.text()).toMatch(/\/public\s+endpoint\s+\*\s+open/);
    expect(term.text()).not.toMatch(/secret/);
    fits(term);
    await term.press('a');
    await expect.poll(() => term.text()).toMatch(/1 │ server "main" \{/);
  });

  it('shows the active source with secrets as *** and the last reload, in 80x24', async () => {
    const term = await consoleOn([portico()]);
    await expect.poll(() => term.text()).toContain('basic_auth = "***"');
    fits(term);
    expect(term.text()).toContain('CONFIG  portico.hcl · applied');
    expect(term.text()).toMatch(/✓ applied \(start\) \d\d:\d\d:\d\d: \+1 server \(main\), \+1 endpoint \(\/a\), \+1 backend/);
    expect(term.text()).toMatch(/1 │ server "main" \{/);
    expect(term.text()).toContain('1 secret hidden');
    expect(term.text()).not.toContain('s3cr3t');
  });

  it('reloads with r and shows the result, then the history with h', async () => {
    const term = await consoleOn([portico()]);
    await expect.poll(() => term.text()).toContain('✓ applied (start)');
    await term.press('r');
    await expect.poll(() => term.text()).toMatch(/reload applied in \d+ ms: unchanged/);
    await term.press('h');
    await expect.poll(() => term.text()).toContain('reload history (2, newest first)');
    fits(term);
    expect(term.text()).toMatch(/TIME {6}TRIGGER {2}RESULT {5}DURATION {2}DIFF/);
    expect(term.text()).toMatch(/\d\d:\d\d:\d\d {2}control {2}✓ applied {2}\d+ ms\s+unchanged/);
    expect(term.text()).toMatch(/\d\d:\d\d:\d\d {2}start {4}✓ applied {2}\d+ ms\s+\+1 server/);
  });

  it('shows a broken save as it happens: rejected, file:line,col, the saved lines with a caret, and the old source still serving below', async () => {
    const file = portico();
    const term = await consoleOn([file]);
    await expect.poll(() => term.text()).toContain('✓ applied (start)');
    writeFileSync(file, configText(['/a'], '  bogus = 1\n') + SECRET_BACKEND);
    await expect.poll(() => term.text()).toContain('✗ rejected (file)');
    expect(term.text()).toContain('the previous config keeps serving');
    expect(term.text()).toContain('portico.hcl:7,3-8: Unsupported argument;');
    // The excerpt is the file as saved (the rejected text), the caret under the argument; the pane below still shows what serves.
    expect(term.text()).toMatch(/ {5}6 │ {3}}\n {5}7 │ {3}bogus = 1\n {5}  │ {3}\^~~~~\n {5}8 │ }/);
    expect(term.text()).not.toMatch(/^ ?\d+ │ {2}bogus = 1/m);
    expect(term.text()).not.toContain('+1 more');
    fits(term);
  });

  it('puts the cause of an unclosed quote first, alone, with the caret under the string', async () => {
    const file = portico();
    const term = await consoleOn([file]);
    await expect.poll(() => term.text()).toContain('✓ applied (start)');
    writeFileSync(file, configText(['/a', '/b']).replace('status = 204', 'status = "204'));
    await expect.poll(() => term.text()).toContain('✗ rejected (file)');
    expect(term.text()).toContain('portico.hcl:4,16-20: Invalid multi-line string; This string has no closing');
    expect(term.text()).toMatch(/ {5}4 │ {7}status = "204\n {7}│ {16}\^~~~\n {5}5 │ {5}}/);
    expect(term.text()).not.toContain('more · d: all problems');
    expect(term.text()).not.toContain('Unclosed configuration block');
    fits(term);
  });

  it('says "+N more" and lists every problem with its source lines on d, secret values as *** (80x24, then 120x30)', async () => {
    const file = portico();
    const term = await consoleOn([file]);
    await expect.poll(() => term.text()).toContain('✓ applied (start)');
    const broken = configText(['/a'], '  bogus = 1\n') + SECRET_BACKEND.replace('    basic_auth', '    nope       = 2\n    basic_auth') + 'settings {\n  odd = true\n}\n';
    writeFileSync(file, broken);
    await expect.poll(() => term.text()).toContain('+2 more · d: all problems');
    expect(term.text()).toMatch(/portico\.hcl:7,3-8: Unsupported argument;/);
    fits(term);
    await term.press('d');
    await expect.poll(() => term.text()).toContain('3 problems of the last reload (file), cause first; d: back');
    expect(term.text()).not.toContain('+2 more · d');
    expect(term.text()).toMatch(/ portico\.hcl:12,5-9: Unsupported argument;/);
    expect(term.text()).toMatch(/ {3}11 │ {5}origin {5}= "http:\/\/127\.0\.0\.1:1"\n {3}12 │ {5}nope {7}= 2\n {6}│ {5}\^~~~\n {3}13 │ {5}basic_auth = "\*\*\*"/);
    expect(term.text()).not.toContain('s3cr3t');
    fits(term);
    term.stdout.resize(120, 30);
    await expect.poll(() => term.screen().length).toBe(30);
    await expect.poll(() => term.text()).toMatch(/portico\.hcl:17,3-6: Unsupported argument;[^\n]*\n {3}16 │ settings \{\n {3}17 │ {3}odd = true\n {6}│ {3}\^~~\n {3}18 │ }/);
    fits(term, 120, 30);
    await term.press('d');
    await expect.poll(() => term.text()).toContain('+2 more · d: all problems');
  });

  it('redraws cleanly when the terminal is resized', async () => {
    const term = await consoleOn([portico()]);
    await expect.poll(() => term.text()).toContain('basic_auth = "***"');
    term.stdout.resize(60, 16);
    await expect.poll(() => term.screen().length).toBe(16);
    fits(term, 60, 16);
    term.stdout.resize(100, 30);
    await expect.poll(() => term.screen().length).toBe(30);
    fits(term, 100, 30);
    expect(term.text()).toContain('CONFIG  portico.hcl');
  });

  it('says clearly that this daemon process runs no gateway', async () => {
    const term = await consoleOn(null);
    await expect.poll(() => term.text()).toContain('✗ config does not run in this daemon process; start it with --mode all');
    fits(term);
  });
});
