import { describe, expect, it } from 'vitest';
import { VERSION } from '../../core/version.js';
import { load, loadOk, problems } from './testing/config-files.js';

const ENDPOINT = (attrs: string): string => `server {\n  endpoint "/" {\n${attrs}\n    response {\n      body = "ok"\n    }\n  }\n}\n`;

describe('env and gateway at load', () => {
  it('builds env from the defaults, overlaid by the process environment, with "" for names read but unset', async () => {
    const config = await loadOk(
      {
        'portico.hcl': `server {
  base_path = "/\${env.PREFIX}/\${env.UNSET}"
  set_response_headers = { x = env.FROM_PROCESS, v = gateway.version }
}
defaults {
  environment_variables = {
    PREFIX = "v1"
    FROM_PROCESS = "default"
    DERIVED = "\${env.HOME}/x"
  }
}
`,
      },
      { FROM_PROCESS: 'process', HOME: '/home/op', SECRET: 'never in the model' },
    );
    // HOME is read (by a default), so it is in; SECRET is read by nothing, so it stays out.
    expect(config.env).toEqual({ UNSET: '', HOME: '/home/op', PREFIX: 'v1', FROM_PROCESS: 'process', DERIVED: '/home/op/x' });
    expect(config.servers[0]?.basePath).toBe('/v1/');
    expect(config.servers[0]?.modifiers.setResponseHeaders).toEqual({ kind: 'static', value: { x: 'process', v: VERSION } });
  });

  it('evaluates functions at load when their arguments are known', async () => {
    const config = await loadOk({ 'portico.hcl': 'server {\n  hosts = [for h in split(",", env.HOSTS) : to_lower(h)]\n}\n' }, { HOSTS: 'A.example,b.example:81' });
    expect(config.servers[0]?.hosts).toEqual([
      { host: 'a.example', port: 8080 },
      { host: 'b.example', port: 81 },
    ]);
  });
});

describe('static or per request', () => {
  it('keeps the expression of a per-request attribute that reads request variables or calls a per-request function', async () => {
    const config = await loadOk({
      'portico.hcl': ENDPOINT(`    set_response_headers = { id = request.id }
    add_response_headers = { t = unixtime() }
    remove_response_headers = [env.DROP]
    custom_log_fields = { at = "\${gateway.version}" }`),
    });
    const e = config.servers[0]?.endpoints[0];
    expect(e?.modifiers.setResponseHeaders?.kind).toBe('expr');
    expect(e?.modifiers.addResponseHeaders?.kind).toBe('expr');
    expect(e?.modifiers.removeResponseHeaders).toEqual({ kind: 'static', value: [''] });
    expect(e?.customLogFields).toEqual([{ kind: 'static', value: { at: VERSION } }]);
  });

  it('refuses request variables and per-request functions in attributes read at load', async () => {
    expect(await problems('server {\n  base_path = request.path\n  hosts = ["h:${unixtime()}"]\n}\n')).toEqual([
      'portico.hcl:2,15-22: Variables not allowed; The attribute "base_path" is read once at load, so it can use only env and gateway; "request" exists only while a request is served.',
      'portico.hcl:3,17-25: Function calls not allowed; The attribute "hosts" is read once at load; unixtime() gives its result per request and cannot be used here.',
    ]);
  });

  it('refuses unknown variables and functions wherever they are', async () => {
    expect(await problems(ENDPOINT('    set_response_headers = { a = reqest.id, b = nope(1) }\n    remove_request_headers = [evn.X]'))).toEqual([
      'portico.hcl:3,34-40: Unknown variable; There is no variable named "reqest".',
      'portico.hcl:3,49-53: Call to unknown function; There is no function named "nope".',
      'portico.hcl:4,31-34: Unknown variable; There is no variable named "evn".',
    ]);
    // Names every object has are unknown like any other.
    expect(await problems(ENDPOINT('    set_response_headers = { a = toString(1), b = constructor() }'))).toEqual([
      'portico.hcl:3,34-42: Call to unknown function; There is no function named "toString".',
      'portico.hcl:3,51-62: Call to unknown function; There is no function named "constructor".',
    ]);
  });

  it('passes evaluation errors through with their positions', async () => {
    expect(await problems('server {\n  base_path = env.NAME + 1\n}\n', {}, { NAME: 'x' })).toEqual([
      'portico.hcl:2,15-23: Invalid operand; Unsuitable value for left operand: a number is required.',
    ]);
  });
});

describe('type checks against the schema', () => {
  it('reports a wrong type at the expression, in upstream words', async () => {
    expect(await problems('server {\n  hosts = "*:8080"\n}\nsettings {\n  log_pretty = "maybe"\n  default_port = "80x"\n  xfh = {}\n}\n')).toEqual([
      'portico.hcl:2,11-19: Incorrect attribute value type; Inappropriate value for attribute "hosts": list of string required.',
      'portico.hcl:5,16-23: Incorrect attribute value type; Inappropriate value for attribute "log_pretty": a bool is required.',
      'portico.hcl:6,18-23: Incorrect attribute value type; Inappropriate value for attribute "default_port": a number is required.',
      'portico.hcl:7,9-11: Incorrect attribute value type; Inappropriate value for attribute "xfh": bool required.',
    ]);
  });

  it('names the element that has the wrong type', async () => {
    expect(await problems(ENDPOINT('    allowed_methods = ["GET", ["POST"]]\n    set_request_headers = { a = "1", b = { c = 2 } }'))).toEqual([
      'portico.hcl:3,23-40: Incorrect attribute value type; Inappropriate value for attribute "allowed_methods": element 1: string required.',
      'portico.hcl:4,27-53: Incorrect attribute value type; Inappropriate value for attribute "set_request_headers": element "b": string, list of string or null required.',
    ]);
  });

  it('converts as upstream does: numbers and bools to strings, numeric strings to numbers', async () => {
    const config = await loadOk({ 'portico.hcl': 'server {\n  hosts = ["*:8080"]\n  base_path = 1\n}\nsettings {\n  default_port = "9000"\n  xfh = "true"\n}\n' });
    expect(config.servers[0]?.basePath).toBe('/1');
    expect(config.settings).toMatchObject({ defaultPort: 9000, xfh: true });
  });

  it('treats null as not set, except for a required attribute', async () => {
    const { config } = await load({ 'portico.hcl': 'server {\n  base_path = null\n}\nsettings {\n  log_format = null\n}\n' });
    expect(config?.servers[0]?.basePath).toBe('/');
    expect(config?.settings.logFormat).toBe('common');
    expect(await problems('server {}\ndefinitions {\n  backend "b" {\n    origin = null\n  }\n}\n')).toEqual([
      'portico.hcl:4,14-18: Missing required argument; The argument "origin" is required, but the given value is null.',
    ]);
  });
});

describe('durations and sizes', () => {
  it('reads Go durations, including µs, into milliseconds', async () => {
    const config = await loadOk({
      'portico.hcl': `server {}
definitions {
  backend "b" {
    origin = "http://b"
    connect_timeout = "1m30s"
    timeout = "1.5s"
    ttfb_timeout = "500µs"
    beta_health {
      interval = "0"
    }
  }
}
`,
    });
    expect(config.backends['b']).toMatchObject({ connectTimeout: 90_000, timeout: 1500, ttfbTimeout: 0.5, health: { interval: 0, timeout: 0 } });
  });

  it("refuses durations Go would refuse, with Go's message", async () => {
    const source = `server {}
definitions {
  backend "b" {
    origin = "http://b"
    connect_timeout = "5"
    timeout = "5 seconds"
    ttfb_timeout = "-1s"
  }
}
`;
    expect(await problems(source)).toEqual([
      'portico.hcl:5,23-26: Invalid attribute value; Invalid value for attribute "connect_timeout": time: missing unit in duration "5".',
      'portico.hcl:6,15-26: Invalid attribute value; Invalid value for attribute "timeout": time: unknown unit " seconds" in duration "5 seconds".',
      'portico.hcl:7,20-25: Invalid attribute value; Invalid value for attribute "ttfb_timeout": a duration must not be negative, got "-1s".',
    ]);
  });

  it('reads sizes in KiB, MiB and GiB', async () => {
    const config = await loadOk({ 'portico.hcl': ENDPOINT('    request_body_limit = "1.5KiB"') });
    expect(config.servers[0]?.endpoints[0]?.requestBodyLimit).toBe(1536);
    expect(await problems(ENDPOINT('    request_body_limit = "64MB"'))).toEqual([
      'portico.hcl:3,26-32: Invalid attribute value; Invalid value for attribute "request_body_limit": "64MB" is not a size; write a number and one of the units B, KiB, MiB, GiB, e.g. 64MiB.',
    ]);
  });
});

describe('the loaded model', () => {
  it('is frozen all the way down', async () => {
    const config = await loadOk({ 'portico.hcl': ENDPOINT('    allowed_methods = ["GET"]') });
    const endpoint = config.servers[0]?.endpoints[0];
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.settings)).toBe(true);
    expect(() => (endpoint?.allowedMethods as string[]).push('POST')).toThrow(TypeError);
  });
});
