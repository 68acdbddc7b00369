import { describe, expect, it } from 'vitest';
import { renderExcerpt, sourceExcerpt, type Range } from '../../hcl/index.js';
import { redactExcerpt, redactSource, secretRanges } from './redact-source.js';

const SOURCE = `// the comment stays
server "main" {
  endpoint "/a" {
    proxy {
      backend = "api"
      set_request_headers = {
        "Authorization" = "Bearer s3cr3t-header"
        x-trace          = "visible"
        nested = { api_key = "s3cr3t-nested" }
      }
    }
  }
}

definitions {
  backend "api" {
    origin     = "http://127.0.0.1:1"
    basic_auth = "user:s3cr3t-basic"
    oauth2 {
      client_secret = <<-EOT
        s3cr3t-heredoc
      EOT
    }
  }
  jwt "j" {
    signing_key = "s3cr3t-ünïcode"
    key_file    = "keys/public.pem"
  }
}

defaults {
  environment_variables = {
    API_TOKEN = "s3cr3t-env"
    REGION    = "eu"
  }
}
`;

describe('redacting the active configuration', () => {
  it('replaces every secret value by "***" and leaves the rest as written', () => {
    const { text, redacted } = redactSource(SOURCE, 'portico.hcl');
    expect(text).not.toBeNull();
    expect(text).not.toMatch(/s3cr3t/);
    expect(text).toContain('"Authorization" = "***"');
    expect(text).toContain('nested = { api_key = "***" }');
    expect(text).toContain('basic_auth = "***"');
    expect(text).toContain('client_secret = "***"\n    }');
    expect(text).toContain('signing_key = "***"');
    expect(text).toContain('key_file    = "***"');
    expect(text).toContain('API_TOKEN = "***"');
    expect(text).toContain('x-trace          = "visible"');
    expect(text).toContain('REGION    = "eu"');
    expect(text).toContain('origin     = "http://127.0.0.1:1"');
    expect(text).toContain('// the comment stays');
    expect(redacted).toBe(7);
  });

  it('shows nothing of a text that does not parse', () => {
    expect(redactSource('backend "x" {\n  password = "s3cr3t"\n', 'broken.hcl')).toEqual({ text: null, redacted: 0 });
  });
});

describe('redacting the excerpt of a rejected save', () => {
  /** The excerpt around (line, column)-(line, endColumn) of `text` as shown, secret values hidden. */
  const excerptOf = (text: string, line: number, column: number, endColumn: number): string[] => {
    const range: Range = { filename: 'portico.hcl', start: { line, column, byte: 0 }, end: { line, column: endColumn, byte: 0 } };
    return renderExcerpt(redactExcerpt(sourceExcerpt(text, range), text, secretRanges(text, 'portico.hcl'))).map((l) => l.text);
  };

  it('hides the secret values on the lines shown, even in a text that does not parse, and keeps the caret under the problem', () => {
    const text = 'backend "x" {\n  basic_auth = "ops:s3cr3t"\n  bogus = 1\n  headers = { Authorization = "Bearer s3cr3t", x = 1 }\n}\nbroken = [\n';
    expect(excerptOf(text, 3, 3, 8)).toEqual(['2 │   basic_auth = "***"', '3 │   bogus = 1', '  │   ^~~~~', '4 │   headers = { Authorization = "***", x = 1 }']);
    // A problem right of a hidden value: the caret moves with the text.
    expect(excerptOf(text, 4, 48, 49)).toEqual(['3 │   bogus = 1', '4 │   headers = { Authorization = "***", x = 1 }', `  │ ${' '.repeat(37)}^`, '5 │ }']);
  });

  it('keeps a secret string that was left open looking open, the caret over the hidden value', () => {
    const text = 'backend "x" {\n  password = "s3cr3t\n}\n';
    expect(excerptOf(text, 2, 14, 21)).toEqual(['1 │ backend "x" {', '2 │   password = "***', '  │              ^~~~', '3 │ }']);
  });

  it('hides every line of a secret heredoc', () => {
    const text = 'oauth2 {\n  client_secret = <<-EOT\n    s3cr3t-heredoc\n  EOT\n  bogus = 1\n}\n';
    const shown = excerptOf(text, 3, 5, 10).join('\n');
    expect(shown).not.toContain('s3cr3t');
    expect(shown).toContain('2 │   client_secret = "***"');
  });
});
