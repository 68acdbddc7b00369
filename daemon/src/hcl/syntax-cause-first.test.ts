// One mistake, one diagnostic, at the mistake: a broken file's first diagnostic is its cause,
// not the cascade the parser's recovery would otherwise report ahead of it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from './index.js';
import { parseErrors } from './testing/hcl-errors.js';

const CONFIG = `server "main" {
  hosts = ["*:8080"]
  endpoint "/a" {
    allowed_methods = ["GET"]
    response {
      body = "hello"
    }
  }
  endpoint "/b" {
    proxy {
      backend = "api"
    }
  }
}

definitions {
  backend "api" {
    origin = "http://127.0.0.1:9000"
  }
}
`;

/** CONFIG with the first `from` after line `line` starts replaced by `to`. */
function broken(line: number, from: string, to: string): string {
  const lines = CONFIG.split('\n');
  const at = lines[line - 1]!;
  expect(at).toContain(from);
  lines[line - 1] = at.replace(from, to);
  return lines.join('\n');
}

describe('syntax errors: the cause first, no cascade', () => {
  it('an unclosed quote is one error at its string, not "unclosed block" at every enclosing block', () => {
    expect(parseErrors(broken(6, '"hello"', '"hello'))).toEqual([
      't.hcl:6,14-20: Invalid multi-line string; This string has no closing quote (") on its line. Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the "heredoc" multi-line template syntax.',
    ]);
  });

  it('an unclosed quote in a block label keeps the block (the brace went into the label)', () => {
    const errors = parseErrors(broken(9, '"/b" {', '"/b {'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^t\.hcl:9,12-17: Invalid multi-line string; /);
  });

  it('a brace missing mid-file is reported at the block that lost it, found by indentation', () => {
    const errors = parseErrors(broken(8, '  }', ''));
    expect(errors).toEqual([
      't.hcl:3,3-18: Unclosed configuration block; This block seems to have no closing brace: the "}" on line 14 is indented like an outer block\'s, yet it is the one that closes this block, so the file ends with a block still open. Add the missing "}" where this block should end.',
    ]);
  });

  it('a brace missing at the end of the file is reported once, at the block left open', () => {
    const text = CONFIG.replace(/}\n$/, '');
    expect(parseErrors(text)).toEqual([
      't.hcl:16,13-14: Unclosed configuration block; There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.',
    ]);
  });

  it('a bad token is reported by the scanner alone, once per line', () => {
    // Both single quotes are one mistake; the parser's "Invalid expression" at the first is its consequence.
    expect(parseErrors(broken(6, '"hello"', "'hello'"))).toEqual(['t.hcl:6,14-15: Invalid character; Single quotes are not valid. Use double quotes (") to enclose strings.']);
    expect(parseErrors(broken(18, '"http://127.0.0.1:9000"', '"http://127.0.0.1:9000";'))).toEqual([
      't.hcl:18,37-38: Invalid character; The ";" character is not valid. Use newlines to separate arguments and blocks, and commas to separate items in collection values.',
    ]);
  });

  it('a bracket or parenthesis left open at the end of a line is reported there, and the next line parses as it was meant', () => {
    expect(parseErrors(broken(4, '["GET"]', '["GET"'))).toEqual([
      't.hcl:4,23-24: Unterminated tuple constructor expression; There is no closing bracket ("]") before the next line, which starts a new argument or block. Add the "]" where the list ends.',
    ]);
    expect(parseErrors(broken(6, '"hello"', 'join(",", ["a"]'))).toEqual([
      't.hcl:6,14-19: Unterminated function call; There is no closing parenthesis (")") for this function call before the next line, which starts a new argument or block. Add the ")" where the call ends.',
    ]);
    // A tuple spread over lines with a comma missing is still that, not an open bracket.
    expect(parseErrors('a = [\n  "x"\n  "y"\n]\n')).toEqual(['t.hcl:3,3-4: Missing item separator; Expected a comma to mark the beginning of the next item.']);
  });

  it('a heredoc without its end marker is reported at its opener', () => {
    expect(parseErrors(broken(6, '"hello"', '<<EOT'))).toEqual([
      't.hcl:6,14-19: Unterminated template string; No closing marker was found for the string: the heredoc opened here runs to the end of the file. End it with a line holding only EOT, followed by a line break.',
    ]);
  });

  it('independent mistakes are all reported, in source order', () => {
    const text = broken(18, '"http://127.0.0.1:9000"', '"http://127.0.0.1:9000').replace('      backend = "api"', '      backend = "api";');
    expect(parseErrors(text).map((e) => e.split(';')[0])).toEqual(['t.hcl:11,22-23: Invalid character', 't.hcl:18,14-36: Invalid multi-line string']);
  });

  it('deleting any one closing quote gives at most two diagnostics, the first on that line', () => {
    const closers = [...CONFIG.matchAll(/"(?=[\s\],])/g)].map((m) => m.index);
    fc.assert(
      fc.property(fc.constantFrom(...closers), (at) => {
        const text = CONFIG.slice(0, at) + CONFIG.slice(at + 1);
        const line = CONFIG.slice(0, at).split('\n').length;
        const { diagnostics } = parse(text, 't.hcl');
        expect(diagnostics.length).toBeGreaterThan(0);
        expect(diagnostics.length).toBeLessThanOrEqual(2);
        expect(diagnostics[0]!.range!.start.line).toBe(line);
      }),
      { numRuns: closers.length * 2 },
    );
  });
});
