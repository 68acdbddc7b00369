import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EndpointConfig, GatewayConfig } from './model.js';
import { load } from './testing/config-files.js';

function endpoint(config: GatewayConfig | null, path: string): EndpointConfig | undefined {
  const server = config?.servers[0];
  return [...(server?.endpoints ?? []), ...(server?.apis.flatMap((a) => a.endpoints) ?? [])].find((e) => e.path === path);
}

function body(e: EndpointConfig | undefined): unknown {
  const b = e?.response?.body;
  return b?.kind === 'static' ? b.value : undefined;
}

describe('several configuration files merge in order', () => {
  it('merges server blocks by label: later attributes win, endpoints add up or replace by pattern', async () => {
    const { config, messages } = await load({
      'a.hcl': `server {
  base_path = "/a"
  error_file = "a.html"
  endpoint "/one" {
    response {
      body = "a1"
    }
  }
  endpoint "/two" {
    response {
      body = "a2"
    }
  }
}
`,
      'b.hcl': 'server {\n  base_path = "/b"\n  endpoint "/two" {\n    response {\n      body = "b2"\n    }\n  }\n}\n',
      'a.html': '<p>',
    });
    expect(messages).toEqual([]);
    expect(config?.servers).toHaveLength(1);
    expect(config?.servers[0]?.basePath).toBe('/b');
    expect(config?.servers[0]?.errorFile).toMatch(/a\.html$/);
    expect(config?.servers[0]?.endpoints.map((e) => [e.path, body(e)])).toEqual([
      ['/b/one', 'a1'],
      ['/b/two', 'b2'],
    ]);
  });

  it('keeps servers with different labels apart', async () => {
    const { config } = await load({
      'a.hcl': 'server "x" {\n  hosts = ["x:8080"]\n}\n',
      'b.hcl': 'server "y" {\n  hosts = ["y:8080"]\n}\nserver "x" {\n  base_path = "/x"\n}\n',
    });
    expect(config?.servers.map((s) => [s.name, s.hosts, s.basePath])).toEqual([
      ['x', [{ host: 'x', port: 8080 }], '/x'],
      ['y', [{ host: 'y', port: 8080 }], '/'],
    ]);
  });

  it('merges api blocks by label, replaces their cors and error handlers', async () => {
    const { config, messages } = await load({
      'a.hcl': `server {
  api "v1" {
    base_path = "/v1"
    cors {
      allowed_origins = "https://a.example"
      allow_credentials = true
    }
    error_handler "backend" "backend_timeout" {
      set_response_status = 503
    }
    endpoint "/a" {
      response {
        body = "a"
      }
    }
  }
}
`,
      'b.hcl': `server {
  api "v1" {
    cors {
      allowed_origins = ["https://b.example"]
    }
    error_handler "backend_timeout" "backend" {
      set_response_status = 504
    }
    endpoint "/b" {
      response {
        body = "b"
      }
    }
  }
}
`,
    });
    expect(messages).toEqual([]);
    const api = config?.servers[0]?.apis[0];
    expect(config?.servers[0]?.apis).toHaveLength(1);
    expect(api?.endpoints.map((e) => e.path)).toEqual(['/v1/a', '/v1/b']);
    expect(api?.cors).toMatchObject({ allowedOrigins: ['https://b.example'], allowCredentials: false });
    expect(api?.errorHandlers.map((h) => [h.kinds, h.modifiers.setResponseStatus])).toEqual([[['backend_timeout', 'backend'], { kind: 'static', value: 504 }]]);
  });

  it('replaces definitions by type and label, and merges settings and environment defaults per name', async () => {
    const { config, messages } = await load(
      {
        'a.hcl': `server {}
definitions {
  backend "one" {
    origin = "http://one-a"
    timeout = "5s"
  }
  backend "two" { origin = "http://two" }
}
settings {
  log_format = "json"
  default_port = 9000
}
defaults {
  environment_variables = {
    A = "a"
    B = "a"
  }
}
`,
        'b.hcl': `definitions {
  backend "one" { origin = "http://one-b" }
}
settings {
  default_port = 9001
}
defaults {
  environment_variables = { B = "b", C = "b" }
}
`,
      },
      { C: 'process' },
    );
    expect(messages).toEqual([]);
    expect(Object.values(config?.backends ?? {}).map((b) => [b.name, b.origin, b.timeout])).toEqual([
      ['one', 'http://one-b', 300_000],
      ['two', 'http://two', 300_000],
    ]);
    expect(config?.settings).toMatchObject({ logFormat: 'json', defaultPort: 9001 });
    expect(config?.env).toEqual({ A: 'a', B: 'b', C: 'process' });
  });

  it('loads a directory as its *.hcl files in name order', async () => {
    const { config, sources } = await load(
      {
        'conf.d/20-b.hcl': 'server {\n  base_path = "/b"\n}\n',
        'conf.d/10-a.hcl': 'server {\n  base_path = "/a"\n}\n',
        'conf.d/notes.txt': 'not configuration',
      },
      {},
      ['conf.d'],
    );
    expect(config?.servers[0]?.basePath).toBe('/b');
    expect(sources.map((s) => s.path.replace(/.*\/conf\.d\//, ''))).toEqual(['10-a.hcl', '20-b.hcl']);
  });

  it('refuses two server blocks with the same label in one of several files, at the second', async () => {
    const { config, messages } = await load({
      'a.hcl': 'server {\n}\n',
      'b.hcl': 'server {\n}\nserver {\n}\n',
    });
    expect(config).toBeNull();
    expect(messages).toEqual([
      'b.hcl:3,1-7: All server blocks must have unique labels.; Another server block without a label is in this file; with several configuration files, blocks of one type merge by label, so each needs its own.',
    ]);
  });

  it('still reports duplicates within one file, and points at the file they are in', async () => {
    const { messages } = await load({
      'a.hcl': 'server {\n  endpoint "/x" {\n    response {\n      body = "1"\n    }\n  }\n}\n',
      'b.hcl': 'server {\n  endpoint "/y" {\n    response {\n      body = "1"\n    }\n  }\n  endpoint "/y" {\n    response {\n      body = "2"\n    }\n  }\n}\n',
    });
    expect(messages).toEqual([
      'b.hcl:7,12-16: Duplicate endpoint; The endpoint "/y" is already defined at b.hcl:2,12 (as "/y"); paths are compared after joining base paths, whatever the {parameter} names, and "/a/" routes as "/a".',
    ]);
  });

  it('resolves relative file references from the directory of the file that names them', async () => {
    const { config, dir, messages } = await load(
      {
        'main.hcl': 'server {\n  error_file = "errors/page.html"\n}\n',
        'sites/docs.hcl': 'server {\n  files {\n    document_root = "public"\n  }\n}\n',
        'errors/page.html': '<p>',
        'sites/public/index.html': '<p>',
      },
      {},
      ['main.hcl', 'sites/docs.hcl'],
    );
    expect(messages).toEqual([]);
    expect(config?.servers[0]?.errorFile).toBe(join(dir, 'errors/page.html'));
    expect(config?.servers[0]?.files[0]?.documentRoot).toBe(join(dir, 'sites/public'));
    expect(config?.referencedFiles).toEqual([join(dir, 'errors/page.html'), join(dir, 'sites/public')]);
  });

  it('merges a single file the same way for settings, but keeps its unlabelled servers apart', async () => {
    const { config } = await load({
      'one.hcl': 'server {\n  hosts = ["a:1"]\n}\nserver {\n  hosts = ["b:1"]\n}\nsettings {\n  log_level = "debug"\n}\nsettings {\n  log_format = "json"\n}\n',
    });
    expect(config?.servers.map((s) => s.hosts[0]?.host)).toEqual(['a', 'b']);
    expect(config?.settings).toMatchObject({ logLevel: 'debug', logFormat: 'json' });
  });

  it('finds the endpoints of a merged configuration', async () => {
    const { config } = await load({ 'a.hcl': 'server {\n  endpoint "/z" {\n    response {\n      body = "z"\n    }\n  }\n}\n' });
    expect(body(endpoint(config, '/z'))).toBe('z');
  });
});
