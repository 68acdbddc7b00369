import { describe, expect, it } from 'vitest';
import type { Block } from './ast.js';
import { parse, parseReusing } from './parse.js';
import { MAX_GENERATIONS, type ParseState } from './reuse.js';

/** A small deterministic generator (mulberry32), so a failure names its seed and replays. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Block and item shapes of a gateway file, with the syntax that changes how text is scanned. */
const ITEMS = [
  (i: number) => `backend "b${i}" {\n  origin = "http://10.0.0.${i % 250}:8080"\n  connect_timeout = "${i % 9}s"\n}\n`,
  (i: number) => `backend "c${i}" {\n  origin = "https://svc-${i}.internal"\n  oauth2 {\n    token_endpoint = "https://idp/${i}"\n    grant_type = "client_credentials"\n  }\n}\n`,
  (i: number) => `# comment ${i}\nbackend "d${i}" { origin = "http://d${i}" }\n`,
  (i: number) => `backend "e${i}" {\n  // line comment\n  path = "/p/\${request.path}/${i}"\n  /* block\n     comment */\n  set_request_headers = { x-n = "${i}", y = [1, 2, ${i}] }\n}\n`,
  (i: number) => `backend "f${i}" {\n  custom_log_fields = {\n    note = <<EOT\n      héllo ${i} \${x}\n      EOT\n  }\n  hostname = "ünï-${i}"\n}\n`,
  (i: number) => `backend "g${i}" {\n  origin = env.ORIGIN_${i}\n  timeout = i${i} > 3 ? "1s" : "2s"\n  list = [for k, v in var.m : "\${k}=\${v}" if v != ${i}]\n}\n`,
];

function generate(rand: () => number, crlf: boolean, large: boolean): string {
  const n = large ? 15 + Math.floor(rand() * 10) : 3 + Math.floor(rand() * 8);
  const lines = ['definitions {\n'];
  for (let i = 0; i < n; i++) lines.push(ITEMS[Math.floor(rand() * ITEMS.length)]?.(i) ?? '');
  lines.push('}\n', 'server "s" {\n  api "/a" {\n    endpoint "/x" {\n      proxy { backend = "b0" }\n    }\n  }\n}\n', 'settings { log_level = "info" }\n');
  const text = lines.join('');
  return crlf ? text.replace(/\n/g, '\r\n') : text;
}

/** Edits an editor makes and a few that break the structure: same-length changes, inserts, deletions. */
const SNIPPETS = ['x', '7', '"', '{', '}', '\n', '#', '//', '/*', '*/', '${', '<<EOT\n', 'EOT\n', 'ü', '😀', ' ', '=', 'a = 1\n', 'blk {\n}\n', 'q "l" { v = 2 }\n'];
const SAME_LENGTH = 'abcxyz0123456789 _-.';

function edit(text: string, rand: () => number): string {
  const at = Math.floor(rand() * (text.length + 1));
  const kind = rand();
  if (kind < 0.5) {
    // Retyping a word or a number: letters for letters, digits for digits (what a save of a value or name mostly is).
    let end = at;
    while (end < text.length && end - at < 4 && /[a-z0-9]/i.test(text[end] as string)) end++;
    let replacement = '';
    for (let i = at; i < end; i++) replacement += /[0-9]/.test(text[i] as string) ? String(Math.floor(rand() * 10)) : String.fromCharCode(97 + Math.floor(rand() * 26));
    return text.slice(0, at) + replacement + text.slice(end);
  }
  if (kind < 0.65) {
    // Same length: the case where blocks after the edit are taken over too.
    const length = 1 + Math.floor(rand() * 3);
    let replacement = '';
    for (let i = 0; i < length; i++) replacement += SAME_LENGTH[Math.floor(rand() * SAME_LENGTH.length)];
    return text.slice(0, at) + replacement.slice(0, Math.max(0, text.length - at)) + text.slice(at + length);
  }
  if (kind < 0.6) {
    const snippet = SNIPPETS[Math.floor(rand() * SNIPPETS.length)] as string;
    if (rand() < 0.5) return text.slice(0, at) + snippet + text.slice(at + snippet.length);
    return text.slice(0, at) + snippet + text.slice(at);
  }
  if (kind < 0.8) return text.slice(0, at) + text.slice(at + 1 + Math.floor(rand() * 6));
  const snippet = SNIPPETS[Math.floor(rand() * SNIPPETS.length)] as string;
  return text.slice(0, at) + snippet + text.slice(at);
}

const plain = (result: { body: unknown; diagnostics: unknown }): string =>
  JSON.stringify({ body: result.body, diagnostics: result.diagnostics }, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));

describe('parseReusing', () => {
  it('gives what a whole parse gives, ranges and diagnostics included, over chains of random edits', () => {
    let compared = 0;
    let reused = 0;
    // Blocks taken over that the edit moved (their positions read in the new text).
    let moved = 0;
    const blocksOf = (body: { blocks: Block[] }, out = new Map<Block, number>()): Map<Block, number> => {
      for (const block of body.blocks) {
        out.set(block, block.range.start.byte);
        blocksOf(block.body, out);
      }
      return out;
    };
    for (let seed = 1; seed <= 60; seed++) {
      const rand = random(seed);
      // Some files larger than the texts' comparison chunk (reuse.ts compares 1,024 units at a time).
      let text = generate(rand, seed % 5 === 0, seed % 6 === 0);
      let state: ParseState | undefined = parseReusing(text, 'gen.hcl', undefined).state;
      for (let step = 0; step < 40; step++) {
        // Mostly one small edit, sometimes a few (a save after several keystrokes), sometimes a revert.
        const before = text;
        const edits = rand() < 0.8 ? 1 : 2 + Math.floor(rand() * 3);
        for (let e = 0; e < edits; e++) text = edit(text, rand);
        if (rand() < 0.1) text = before;
        const before_ = state ? blocksOf(state.body) : new Map<Block, number>();
        const got = parseReusing(text, 'gen.hcl', state);
        const whole = parse(text, 'gen.hcl');
        expect(plain(got), `seed ${seed}, step ${step}:\n${text}`).toBe(plain(whole));
        for (const [block, byte] of blocksOf(got.body)) if (before_.has(block) && before_.get(block) !== byte) moved++;
        if ((got.state?.generations ?? 0) > 1) reused++;
        compared++;
        state = got.state;
        if (!state && rand() < 0.8) {
          // Broken files are often fixed back: start again from the last clean text.
          text = before;
          state = parseReusing(text, 'gen.hcl', undefined).state;
        }
      }
    }
    expect(compared).toBe(2400);
    // Many of the parses took blocks over (the comparison would prove nothing otherwise).
    expect(reused).toBeGreaterThan(compared / 6);
    expect(moved).toBeGreaterThan(500);
  });

  const FILE = [
    'definitions {',
    '  backend "a" {',
    '    origin = "http://a:8080"',
    '  }',
    '  backend "b" {',
    '    origin = "http://b:8080"',
    '    connect_timeout = "5s"',
    '  }',
    '  backend "c" {',
    '    origin = "http://c:8080"',
    '  }',
    '}',
    '',
  ].join('\n');
  const backends = (body: { blocks: Block[] }): Block[] => (body.blocks[0] as Block).body.blocks;

  it('takes over the blocks before an edit and those after it, wherever the edit moved them', () => {
    const first = parseReusing(FILE, 'f.hcl', undefined);
    const [a, b, c] = backends(first.body);
    const same = parseReusing(FILE.replace('"5s"', '"6s"'), 'f.hcl', first.state);
    expect(backends(same.body)[0]).toBe(a);
    expect(backends(same.body)[1]).not.toBe(b);
    expect(backends(same.body)[2]).toBe(c);
    const timeout = FILE.indexOf('connect_timeout');
    expect((backends(same.body)[1] as Block).body.attributes.connect_timeout?.range.start).toEqual({ line: 7, column: 5, byte: timeout });

    // A second parse from the state `same` was taken from: nothing is taken (its ranges read `same`'s text now).
    const branch = parseReusing(FILE.replace('"5s"', '"7s"'), 'f.hcl', first.state);
    expect(backends(branch.body)[0]).not.toBe(a);
    expect(plain(branch)).toBe(plain(parse(FILE.replace('"5s"', '"7s"'), 'f.hcl')));

    // One character longer, then a line more above everything: the blocks after the edit are taken over and read where they are now.
    const longer = parseReusing(FILE.replace('"5s"', '"30s"'), 'f.hcl', same.state);
    expect(backends(longer.body)[0]).toBe(a);
    expect(backends(longer.body)[2]).toBe(c);
    expect((backends(longer.body)[2] as Block).range.start).toEqual({ line: 9, column: 3, byte: FILE.indexOf('backend "c"') + 1 });
    expect(plain(longer)).toBe(plain(parse(FILE.replace('"5s"', '"30s"'), 'f.hcl')));
    const below = `# a comment\n${FILE.replace('"5s"', '"30s"')}`;
    const moved = parseReusing(below, 'f.hcl', longer.state);
    expect(backends(moved.body)[2]).toBe(c);
    expect((backends(moved.body)[2] as Block).range.start).toEqual({ line: 10, column: 3, byte: below.indexOf('backend "c"') });
    expect(plain(moved)).toBe(plain(parse(below, 'f.hcl')));
  });

  it('gives the previous body itself for the same text, without counting a generation', () => {
    const first = parseReusing(FILE, 'f.hcl', undefined);
    const again = parseReusing(FILE, 'f.hcl', first.state);
    expect(again.body).toBe(first.body);
    expect(again.state).toBe(first.state);
    expect(parseReusing(FILE, 'other.hcl', first.state).body).not.toBe(first.body);
  });

  it('parses everything again after a parse with diagnostics and after MAX_GENERATIONS parses that took blocks over', () => {
    const first = parseReusing(FILE, 'f.hcl', undefined);
    const broken = parseReusing(FILE.replace('"5s"', '"5s'), 'f.hcl', first.state);
    expect(broken.diagnostics.length).toBeGreaterThan(0);
    expect(broken.state).toBeUndefined();
    expect(plain(broken)).toBe(plain(parse(FILE.replace('"5s"', '"5s'), 'f.hcl')));

    let state = first.state;
    const a = backends(first.body)[0];
    for (let i = 1; i < MAX_GENERATIONS; i++) {
      const next = parseReusing(FILE.replace('"5s"', `"${i}s"`), 'f.hcl', state);
      expect(backends(next.body)[0]).toBe(a);
      state = next.state;
    }
    expect(state?.generations).toBe(MAX_GENERATIONS);
    const fresh = parseReusing(FILE, 'f.hcl', state);
    expect(backends(fresh.body)[0]).not.toBe(a);
    expect(fresh.state?.generations).toBe(1);
  });
});
