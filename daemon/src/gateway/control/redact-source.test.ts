import { describe, expect, it } from 'vitest';
import { redactSource } from './redact-source.js';

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
