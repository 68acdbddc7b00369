import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateSource, HclError, parse } from './index.js';

const SAMPLE = `server "main" {
  hosts = ["*:8080", "\${env.HOST}:9"]
  api {
    base_path = "/api"
    endpoint "/items/{id}" {
      response {
        status = 200
        json_body = { id = request.path_params.id, list = [for i, v in xs: v * i if v > 1] }
        body = <<-EOT
          hello %{ if true ~} world %{~ endif }
          \${join(",", ["a"])}
        EOT
      }
    }
  }
}
settings { log_format = "json" }
`;

const TOKENS = ['{', '}', '[', ']', '(', ')', '"', '${', '%{', '~}', '<<EOT\n', 'EOT\n', '\n', '=', ',', '.', '*', '...', '=>', '?', ':', 'for', 'in', 'if', 'x', '1', '1e5', '#', '//', '/*', '*/', '\\', '$${', '-', '!', '&&', 'null', ' '];

/** Parsing and evaluating must only ever fail with HclError. */
function mustNotCrash(src: string): void {
  parse(src, 'fuzz.hcl');
  try {
    evaluateSource(src, { x: [1, { a: 2 }], env: { HOST: 'h' } });
  } catch (error) {
    expect(error).toBeInstanceOf(HclError);
  }
}

describe('fuzz: no input crashes or hangs the parser or evaluator', () => {
  it('random strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), mustNotCrash), { numRuns: 1500 });
  }, 60_000);

  it('random token soups', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 80 }), (parts) => mustNotCrash(parts.join(''))), { numRuns: 1500 });
  }, 60_000);

  it('mutations of a realistic config', () => {
    const mutation = fc.tuple(fc.nat({ max: SAMPLE.length }), fc.nat({ max: 12 }), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (edits) => {
        let src = SAMPLE;
        for (const [at, del, ins] of edits) src = src.slice(0, at) + ins + src.slice(at + del);
        const { diagnostics } = parse(src, 'fuzz.hcl');
        for (const d of diagnostics) expect(d.summary.length).toBeGreaterThan(0);
      }),
      { numRuns: 1500 },
    );
  }, 60_000);

  it('deep nesting is reported, not a stack overflow', () => {
    const { diagnostics } = parse(`a = ${'('.repeat(5000)}1${')'.repeat(5000)}\n`, 'deep.hcl');
    expect(diagnostics[0]?.summary).toBe('Too deeply nested');
    const blocks = parse(`${'b {\n'.repeat(3000)}${'}\n'.repeat(3000)}`, 'deep.hcl');
    expect(blocks.diagnostics.length).toBeGreaterThan(0);
  }, 60_000);

  it('huge exponents do not hang', () => {
    expect(() => evaluateSource('1e999999999 + 1')).toThrow(HclError);
  });
});
