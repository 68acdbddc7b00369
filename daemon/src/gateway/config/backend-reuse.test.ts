import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../hcl/index.js';
import { builtBackend, ReusableBackends } from './backend-reuse.js';
import { loadGatewayConfig, type LoadResult } from './load.js';
import { tempFiles } from './testing/config-files.js';

const FILE = '/virtual/portico.hcl';
const SERVER = 'server {\n  endpoint "/" {\n    proxy {\n      backend = "a"\n    }\n  }\n}\n';

function loadText(text: string, reuse?: ReusableBackends, env: Record<string, string> = {}, file = FILE): Promise<LoadResult> {
  return loadGatewayConfig([file], env, { texts: new Map([[file, text]]), reuse });
}

function backend(label: string, body: string): string {
  return `  backend "${label}" {\n${body}  }\n`;
}

function definitions(...backends: string[]): string {
  return `definitions {\n${backends.join('')}}\n${SERVER}`;
}

const plain = (label: string, timeout = '5s'): string => backend(label, `    origin = "http://${label}.internal:8080"\n    connect_timeout = "${timeout}"\n`);

describe('backends reused from the previous load', () => {
  it('takes every unchanged self-contained backend as the same object, and the config equals a fresh load', async () => {
    const text = definitions(plain('a'), plain('b'), backend('c', '    origin = "http://c:80"\n    beta_health {\n      path = "/healthz"\n      expected_status = [200, 204]\n    }\n'));
    const first = await loadText(text);
    expect(first.reusedBackends).toBe(0);
    expect(first.reusable.size).toBe(3);
    const second = await loadText(text, first.reusable);
    expect(second.reusedBackends).toBe(3);
    for (const name of ['a', 'b', 'c']) expect(second.config!.backends[name]).toBe(first.config!.backends[name]);
    expect(second.config).toEqual(first.config);
    expect(Object.isFrozen(second.config!.backends['c']!.health)).toBe(true);
  });

  it('builds a changed backend again and keeps the others', async () => {
    const first = await loadText(definitions(plain('a'), plain('b')));
    const second = await loadText(definitions(plain('a'), plain('b', '7s')), first.reusable);
    expect(second.reusedBackends).toBe(1);
    expect(second.config!.backends['a']).toBe(first.config!.backends['a']);
    expect(second.config!.backends['b']!.connectTimeout).toBe(7000);
    // The rebuilt one is kept for the load after.
    const third = await loadText(definitions(plain('a'), plain('b', '7s')), second.reusable);
    expect(third.reusedBackends).toBe(2);
  });

  it('takes what moved with its range moved: the same text lines or bytes further, in the same column', async () => {
    const first = await loadText(definitions(plain('a'), plain('b')));
    const shifted = `# a comment line\n${definitions(plain('a'), plain('b'))}`;
    const second = await loadText(shifted, first.reusable);
    expect(second.reusedBackends).toBe(2);
    expect(second.config!.backends['a']!.range.start.line).toBe(first.config!.backends['a']!.range.start.line + 1);
    expect(second.config).toEqual((await loadText(shifted)).config);
    // A copy (its range differs), sharing what it holds; frozen as a built one is.
    expect(second.config!.backends['b']).not.toBe(first.config!.backends['b']);
    expect(second.config!.backends['b']!.modifiers).toBe(first.config!.backends['b']!.modifiers);
    expect(Object.isFrozen(second.config!.backends['b']!.range.start)).toBe(true);
    // What caches by backend object and reads no position finds the object the first load built.
    expect(builtBackend(second.config!.backends['b']!)).toBe(first.config!.backends['b']);
    expect(builtBackend(first.config!.backends['b']!)).toBe(first.config!.backends['b']);
    // Moved again (bytes only, then lines only): each time where a fresh load puts it.
    for (const text of [`# a longer comment line\n${definitions(plain('a'), plain('b'))}`, `#\n\n${definitions(plain('a'), plain('b'))}`]) {
      const next = await loadText(text, second.reusable);
      expect(next.reusedBackends).toBe(2);
      expect(next.config).toEqual((await loadText(text)).config);
      expect(builtBackend(next.config!.backends['b']!)).toBe(first.config!.backends['b']);
    }
    const relabelled = await loadText(definitions(plain('a'), plain('b')).replace('backend "b"', 'backend "x"'), first.reusable);
    expect(relabelled.reusedBackends).toBe(1);
    expect(relabelled.config!.backends['b']).toBeUndefined();
  });

  it('builds again a block that starts in another column', async () => {
    const first = await loadText(definitions(plain('a'), plain('b')));
    const indented = definitions(plain('a'), ` ${plain('b')}`);
    const second = await loadText(indented, first.reusable);
    expect(second.reusedBackends).toBe(1);
    expect(second.config!.backends['b']!.range.start.column).toBe(first.config!.backends['b']!.range.start.column + 1);
    expect(second.config).toEqual((await loadText(indented)).config);
  });

  it('sees an edit after non-ASCII text: blocks are compared as text, not at byte offsets', async () => {
    // 60 UTF-8 bytes more than UTF-16 units before the block: byte offsets used as string
    // indexes would compare the wrong 60 characters and miss an edit of the origin.
    const comment = `# ${'日本語のコメント'.repeat(4)}\n`;
    const text = (host: string): string => `${comment}${definitions(backend('a', `    origin = "http://${host}:8080"\n`))}`;
    const first = await loadText(text('aaa'));
    expect(first.reusable.size).toBe(1);
    const second = await loadText(text('bbb'), first.reusable);
    expect(second.reusedBackends).toBe(0);
    expect(second.config!.backends['a']!.origin).toBe('http://bbb:8080');
    const third = await loadText(text('bbb'), second.reusable);
    expect(third.reusedBackends).toBe(1);
    expect(third.config!.backends['a']).toBe(second.config!.backends['a']);
  });

  it('never takes a backend that reads env: a changed variable gives the new value', async () => {
    const text = definitions(backend('a', '    origin = env.ORIGIN\n'));
    const first = await loadText(text, undefined, { ORIGIN: 'http://one:81' });
    expect(first.reusable.size).toBe(0);
    const second = await loadText(text, first.reusable, { ORIGIN: 'http://two:81' });
    expect(second.reusedBackends).toBe(0);
    expect(second.config!.backends['a']!.origin).toBe('http://two:81');
  });

  it('never takes a backend that names a file: the file is checked on every load', async () => {
    const dir = tempFiles({ 'ca.pem': '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' });
    const text = definitions(backend('a', `    origin = "https://a:443"\n    ca_file = "${join(dir, 'ca.pem')}"\n`));
    const first = await loadText(text);
    expect(first.config).not.toBeNull();
    expect(first.reusable.size).toBe(0);
    rmSync(join(dir, 'ca.pem'));
    const second = await loadText(text, first.reusable);
    expect(second.config).toBeNull();
    expect(second.diagnostics.map(formatDiagnostic).join('\n')).toContain('Unreadable file');
    expect(second.referencedFiles).toContain(join(dir, 'ca.pem'));
  });

  it('never takes a backend with an oauth2 block (it makes or names another backend)', async () => {
    const text = definitions(plain('a'), backend('t', '    origin = "http://t:80"\n    oauth2 {\n      grant_type = "client_credentials"\n      token_endpoint = "http://idp:80/token"\n      client_id = "id"\n      client_secret = "secret"\n    }\n'));
    const first = await loadText(text);
    expect(first.config).not.toBeNull();
    expect(first.reusable.size).toBe(1);
    const second = await loadText(text, first.reusable);
    expect(second.reusedBackends).toBe(1);
    expect(second.config).toEqual(first.config);
  });

  it('reports again what a backend reported: one with a problem is never kept', async () => {
    const bad = definitions(plain('a'), backend('b', '    origin = "http://b:80"\n    max_connections = -1\n'));
    const first = await loadText(bad);
    expect(first.config).toBeNull();
    // A failed load hands back the table it was given.
    expect(first.reusable).toBe(ReusableBackends.EMPTY);
    const again = await loadText(bad, first.reusable);
    expect(again.diagnostics.map(formatDiagnostic)).toEqual(first.diagnostics.map(formatDiagnostic));
    const good = await loadText(definitions(plain('a')));
    const stillBad = await loadText(bad, good.reusable);
    expect(stillBad.diagnostics.map(formatDiagnostic)).toEqual(first.diagnostics.map(formatDiagnostic));
    expect(stillBad.reusable).toBe(good.reusable);
  });

  it('takes nothing across files: the same block in another file is built again', async () => {
    const dir = tempFiles({});
    const one = join(dir, 'one.hcl');
    const two = join(dir, 'two.hcl');
    const text = definitions(plain('a'));
    const first = await loadText(text, undefined, {}, one);
    const second = await loadText(text, first.reusable, {}, two);
    expect(second.reusedBackends).toBe(0);
    expect(second.config!.backends['a']!.range.filename).toBe(two);
    writeFileSync(one, text);
    const third = await loadGatewayConfig([one], {}, { reuse: first.reusable });
    expect(third.reusedBackends).toBe(1);
  });

  it('gives exactly what a fresh load gives, over any sequence of edits', async () => {
    // Mostly valid, so that most loads succeed and leave a table; now and then a problem.
    const sometimes = <T,>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<T>): fc.Arbitrary<T> => fc.oneof({ weight: 9, arbitrary: usual }, { weight: 1, arbitrary: rare });
    const values = sometimes(fc.constantFrom('"http://a:80"', '"http://b:80"', '"http://ä:80"', '"https://b.internal"', 'env.ORIGIN', '"http://${env.HOST}:80"', 'to_lower("HTTP://C:80")'), fc.constant('"not a url"'));
    const timeouts = sometimes(fc.constantFrom('"5s"', '"7s"', '"1m"'), fc.constantFrom('"-1s"', '"later"', '5'));
    // Two of the same length with one newline more: what follows keeps its bytes, not its lines;
    // one moves the block's column; non-ASCII ones make bytes and UTF-16 offsets differ.
    const padding = fc.constantFrom('', '\n', '   ', '#x\n', '#\n\n', '#é\n', `# ${'日本語'.repeat(8)}\n`);
    const block = fc.record({
      label: sometimes(fc.constantFrom(...'bcdefghijklmnopq'), fc.constantFrom('a', 'anonymous_1', 'bad-label')),
      origin: values,
      timeout: timeouts,
      health: sometimes(fc.constantFrom('', '    beta_health {\n      path = "/h"\n    }\n', '    beta_health {\n      headers = { x = env.HOST }\n    }\n'), fc.constant('    beta_health {\n      path = "h"\n    }\n')),
      padding,
    });
    const text = (blocks: { label: string; origin: string; timeout: string; health: string; padding: string }[]): string =>
      definitions(plain('a'), ...blocks.map((b) => `${b.padding}${backend(b.label, `    origin = ${b.origin}\n    connect_timeout = ${b.timeout}\n${b.health}`)}`));
    const envs = fc.record({ ORIGIN: sometimes(fc.constant('http://e:80'), fc.constant('ftp://x')), HOST: fc.constantFrom('h1', 'h2') });
    // Each step keeps the blocks (the env may change), replaces or appends one, removes one, or pads one.
    const edit = fc.oneof(fc.constant(null), fc.tuple(fc.nat(), block), fc.nat(), fc.record({ at: fc.nat(), padding }));
    let [loaded, taken] = [0, 0];
    await fc.assert(
      fc.asyncProperty(fc.array(block, { maxLength: 5 }), fc.array(fc.tuple(edit, envs), { minLength: 2, maxLength: 8 }), async (initial, steps) => {
        const blocks = [...initial];
        let reuse = ReusableBackends.EMPTY;
        for (const [change, env] of steps) {
          if (Array.isArray(change)) blocks.splice(change[0] % (blocks.length + 1), 1, change[1]);
          else if (typeof change === 'number' && blocks.length > 0) blocks.splice(change % blocks.length, 1);
          else if (change !== null && typeof change === 'object' && blocks.length > 0) {
            const at = change.at % blocks.length;
            blocks[at] = { ...blocks[at]!, padding: change.padding };
          }
          const source = text(blocks);
          const fresh = await loadText(source, undefined, env);
          const reused = await loadText(source, reuse, env);
          expect(reused.config).toEqual(fresh.config);
          expect(reused.diagnostics).toEqual(fresh.diagnostics);
          expect(reused.referencedFiles).toEqual(fresh.referencedFiles);
          reuse = reused.reusable;
          if (fresh.config) loaded += 1;
          taken += reused.reusedBackends;
        }
      }),
      { numRuns: 100, seed: 15 },
    );
    // The runs did exercise reuse: many loads succeeded and took backends.
    expect(loaded).toBeGreaterThan(150);
    expect(taken).toBeGreaterThan(150);
  });

  it('keeps no old copy of the file alive: twenty saves of a 2 MiB file, each changing another backend', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const padding = `# ${'x'.repeat(2 * 1024 * 1024)}\n`;
    const long = (i: number): string => `    path_prefix = "/a/prefix/long/enough/to/be/a/slice/${i}"\n`;
    const source = (changed: number): string => padding + definitions(plain('a'), ...Array.from({ length: 20 }, (_, i) => backend(`b${i}`, `    origin = "http://10.0.0.${i}:8080"\n${long(i)}    connect_timeout = "${i === changed ? 7 : 5}s"\n`)));
    gc();
    const before = process.memoryUsage().heapUsed;
    let last: LoadResult | null = null;
    for (let changed = 0; changed < 20; changed++) {
      last = await loadText(source(changed), last?.reusable);
      expect(last.config).not.toBeNull();
    }
    // Each save changes one backend back and another: two of the 21 are built again.
    expect(last!.reusedBackends).toBe(19);
    gc();
    // The last text and model, about 2 MiB; each old text kept would add another 2 MiB.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(12 * 1024 * 1024);
  });
});
