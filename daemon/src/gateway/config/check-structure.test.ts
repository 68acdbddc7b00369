import { describe, expect, it } from 'vitest';
import { formatDiagnostic, parse } from '../../hcl/index.js';
import { checkStructure } from './check-structure.js';

function check(source: string): string[] {
  const { body, diagnostics } = parse(source, 'portico.hcl');
  expect(diagnostics.map(formatDiagnostic)).toEqual([]);
  return checkStructure(body).map(formatDiagnostic);
}

describe('checkStructure', () => {
  it('accepts a configuration that uses the blocks in scope', () => {
    expect(
      check(`
server "main" {
  hosts = ["*:8080"]
  cors { allowed_origins = "*" }
  files { document_root = "./public" }
  spa {
    bootstrap_file = "./public/index.html"
    paths = ["/app/**"]
  }
  api {
    base_path = "/api"
    error_handler "backend_timeout" {
      response { status = 503 }
    }
    endpoint "/items/{id}" {
      set_response_status = 200
      proxy {
        backend = "items"
        expected_status = [200]
      }
      request "audit" {
        url = "http://audit:8080/log"
        backend { origin = "http://audit:8080" }
      }
    }
  }
}
definitions {
  backend "items" {
    origin = "http://items:8080"
    beta_health { path = "/health" }
  }
}
settings { log_format = "json" }
defaults { environment_variables = { A = "1" } }
`),
    ).toEqual([]);
  });

  it('names an unsupported attribute at its name', () => {
    expect(check('server {\n  hostz = ["a"]\n}\n')).toEqual(['portico.hcl:2,3-8: Unsupported argument; An argument named "hostz" is not expected here.']);
    expect(check('server {\n  toString = 1\n  constructor = 2\n}\n')).toEqual([
      'portico.hcl:2,3-11: Unsupported argument; An argument named "toString" is not expected here.',
      'portico.hcl:3,3-14: Unsupported argument; An argument named "constructor" is not expected here.',
    ]);
  });

  it('names a block in the wrong place at its type', () => {
    expect(check('server {\n  backend "b" { origin = "http://x" }\n}\n')).toEqual([
      'portico.hcl:2,3-10: Unsupported block type; Blocks of type "backend" are not expected here.',
    ]);
  });

  it('reports every missing required attribute at the block header', () => {
    expect(check('definitions {\n  backend "b" {\n  }\n}\nserver {\n  files {}\n}\n')).toEqual([
      'portico.hcl:2,3-14: Missing required argument; The argument "origin" is required, but no definition was found.',
      'portico.hcl:6,3-8: Missing required argument; The argument "document_root" is required, but no definition was found.',
    ]);
  });

  it('checks label counts, and that backends in definitions are named', () => {
    expect(check('server {\n  endpoint {}\n}\ndefinitions {\n  backend { origin = "http://x" }\n}\nsettings "s" {}\n')).toEqual([
      'portico.hcl:2,3-11: Missing pattern for endpoint; All endpoint blocks must have 1 labels (pattern).',
      'portico.hcl:5,3-10: Missing name for backend; All backend blocks must have 1 labels (name).',
      'portico.hcl:7,10-13: Extraneous label for settings; No labels are expected for settings blocks.',
    ]);
  });

  it('accepts an openapi block in a backend, which needs its file', () => {
    const [message] = check('server {\n  endpoint "/x" {\n    proxy {\n      backend {\n        origin = "http://b"\n        openapi {}\n      }\n    }\n  }\n}\n');
    expect(message).toMatch(/^portico\.hcl:6,\d+-\d+: Missing required argument; The argument "file" is required/);
  });
});
