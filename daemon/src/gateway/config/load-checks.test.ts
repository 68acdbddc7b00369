import { describe, expect, it } from 'vitest';
import { problems } from './testing/config-files.js';

/** A valid endpoint body, for tests about something else (nested blocks need lines of their own). */
const OK = 'response {\n  body = "ok"\n}';

describe('load-time checks', () => {
  it("reports a configuration without a server block", async () => {
    expect(await problems('settings {}\n')).toEqual(["configuration error: missing 'server' block"]);
  });

  it('requires hosts on every server when there are several', async () => {
    expect(await problems('server "a" {\n  hosts = ["*:8080"]\n}\nserver "b" {\n}\n')).toEqual([
      'portico.hcl:4,1-11: Missing required argument; The argument "hosts" is required when there is more than one server block (server "b").',
    ]);
  });

  it('refuses a host:port served by two servers, after normalising with default_port', async () => {
    const source = 'settings { default_port = 9000 }\nserver "a" {\n  hosts = ["*", "api.example.com"]\n}\nserver "b" {\n  hosts = ["web.example.com", "*:9000"]\n}\n';
    expect(await problems(source)).toEqual([
      'portico.hcl:6,31-39: Duplicate host; conflict: host "*" already defined for port 9000 by the server at portico.hcl:3,12.',
    ]);
  });

  it('refuses a malformed host at its element', async () => {
    expect(await problems('server {\n  hosts = ["ok.example", "bad host:80", "*:99999"]\n}\n')).toEqual([
      'portico.hcl:2,26-39: Invalid host; host format is invalid: "bad host:80"; write host, host:port, host:*, * or *:port.',
      'portico.hcl:2,41-50: Invalid host; host format is invalid: "*:99999"; write host, host:port, host:*, * or *:port.',
    ]);
  });

  it('refuses duplicate endpoint patterns after joining base paths, whatever the parameter names or a trailing slash', async () => {
    const source = `server {
  base_path = "/v1"
  endpoint "/api/users/{id}" {
    ${OK}
  }
  api {
    base_path = "/api"
    endpoint "/users/{name}" {
      ${OK}
    }
  }
  endpoint "/admin" {
    ${OK}
  }
  endpoint "/admin/" {
    ${OK}
  }
}
`;
    expect(await problems(source)).toEqual([
      'portico.hcl:10,14-29: Duplicate endpoint; The endpoint "/v1/api/users/{name}" is already defined at portico.hcl:3,12 (as "/v1/api/users/{id}"); paths are compared after joining base paths, whatever the {parameter} names, and "/a/" routes as "/a".',
      'portico.hcl:21,12-21: Duplicate endpoint; The endpoint "/v1/admin/" is already defined at portico.hcl:16,12 (as "/v1/admin"); paths are compared after joining base paths, whatever the {parameter} names, and "/a/" routes as "/a".',
    ]);
  });

  it('allows the same pattern on two servers', async () => {
    const source = `server "a" {\n  hosts = ["a:8080"]\n  endpoint "/x" {\n${OK}\n}\n}\nserver "b" {\n  hosts = ["b:8080"]\n  endpoint "/x" {\n${OK}\n}\n}\n`;
    expect(await problems(source)).toEqual([]);
  });

  it('refuses a reference to a backend that definitions does not hold', async () => {
    const source = `server {\n  endpoint "/" {\n    proxy {\n      backend = "nope"\n    }\n  }\n}\ndefinitions {\n  backend "yes" { origin = "http://yes" }\n}\n`;
    expect(await problems(source)).toEqual([
      "portico.hcl:4,17-23: Undefined backend; backend reference 'nope' is not defined in definitions.",
    ]);
  });

  it('refuses access control references: no access control block can be defined in this build', async () => {
    const source = `server {\n  access_control = ["ba"]\n  endpoint "/" {\n    disable_access_control = ["ba", "jwt"]\n    ${OK}\n  }\n}\n`;
    expect(await problems(source)).toEqual([
      'portico.hcl:2,21-25: Undefined access control; The access control "ba" is not defined in definitions (there are none: add a basic_auth or jwt block there).',
      'portico.hcl:4,31-35: Undefined access control; The access control "ba" is not defined in definitions (there are none: add a basic_auth or jwt block there).',
      'portico.hcl:4,37-42: Undefined access control; The access control "jwt" is not defined in definitions (there are none: add a basic_auth or jwt block there).',
    ]);
  });

  it('refuses circular backend_responses sequences, naming the blocks', async () => {
    const source = `server {
  endpoint "/" {
    request "a" {
      url = "http://x/\${backend_responses.c.status}"
    }
    request "b" {
      url = "http://x/"
      json_body = backend_responses.a.json_body
    }
    request "c" {
      url = "http://x/"
      headers = { x = backend_responses["b"].headers.y }
    }
    ${OK}
  }
}
`;
    expect(await problems(source)).toEqual(['portico.hcl:3,5-16: configuration error; circular sequence reference: a,c,b,a']);
  });

  it('refuses a request with more than one of body, form_body and json_body', async () => {
    const source = `server {
  endpoint "/" {
    request {
      url = "http://x/"
      json_body = {}
      form_body = { a = "b" }
    }
    response {
      body = "a"
      json_body = "b"
    }
  }
}
`;
    expect(await problems(source)).toEqual([
      'portico.hcl:6,7-30: Conflicting body attributes; request can only have one of body, form_body or json_body attributes; form_body and json_body are set.',
      'portico.hcl:9,7-17: Conflicting body attributes; response can only have one of body or json_body attributes; body and json_body are set.',
    ]);
  });

  it('refuses files the configuration names but that cannot be read', async () => {
    const source = `server {
  error_file = "missing.html"
  files {
    document_root = "page.html"
  }
  spa {
    bootstrap_file = "public"
    paths = ["/app/**"]
  }
}
settings {
  ca_file = "page.html"
}
`;
    // The messages name the resolved absolute path too; the helper shows it relative to the test's directory.
    expect(await problems(source, { 'page.html': '<p>', 'public/index.html': '<p>' })).toEqual([
      'portico.hcl:2,16-30: Unreadable file; The error_file "missing.html" (missing.html) does not exist.',
      'portico.hcl:4,21-32: Unreadable file; The document_root "page.html" (page.html) is not a directory.',
      'portico.hcl:7,22-30: Unreadable file; The bootstrap_file "public" (public) is not a regular file.',
      'portico.hcl:12,13-24: Unreadable file; The ca_file "page.html" (page.html) holds no PEM certificate.',
    ]);
  });

  it('refuses allowed_methods entries that are not method tokens, at the entry', async () => {
    const source = `server {\n  api {\n    allowed_methods = ["GET", "BR EW"]\n    endpoint "/" {\n      allowed_methods = ["*", "(x)"]\n      ${OK}\n    }\n  }\n}\n`;
    expect(await problems(source)).toEqual([
      'portico.hcl:3,31-38: Invalid method; method contains invalid character(s): "BR EW" in allowed_methods is not an HTTP method token.',
      'portico.hcl:5,31-36: Invalid method; method contains invalid character(s): "(x)" in allowed_methods is not an HTTP method token.',
    ]);
  });

  it("allows at most one 'default' proxy or request per endpoint, and unique names", async () => {
    const source = `server {
  endpoint "/" {
    proxy { url = "http://a/" }
    request { url = "http://b/" }
    request "x" { url = "http://c/" }
    proxy "x" { url = "http://d/" }
  }
}
`;
    expect(await problems(source)).toEqual([
      'portico.hcl:4,5-12: Duplicate proxy or request name; proxy and request names (either default or explicitly set via label) must be unique: "default" is already used at portico.hcl:3,5.',
      'portico.hcl:6,5-14: Duplicate proxy or request name; proxy and request names (either default or explicitly set via label) must be unique: "x" is already used at portico.hcl:5,5.',
    ]);
  });

  it('requires every endpoint to produce a response', async () => {
    const source = `server {\n  endpoint "/none" {\n  }\n  endpoint "/labelled" {\n    request "a" { url = "http://a/" }\n  }\n  endpoint "/fine" {\n    request "a" { url = "http://a/" }\n    ${OK}\n  }\n}\n`;
    expect(await problems(source)).toEqual([
      "portico.hcl:2,3-19: Missing a 'default' proxy or request definition, or a response block; Each endpoint must produce a response: add a response block, or an unlabelled proxy or request block.",
      "portico.hcl:4,3-23: Missing a 'default' proxy or request definition, or a response block; Each endpoint must produce a response: add a response block, or an unlabelled proxy or request block.",
    ]);
  });

  it('requires the host of url to equal the origin of the backend when both are set', async () => {
    const source = `server {
  endpoint "/" {
    proxy {
      backend = "b"
      url = "http://other.example/x"
    }
    request "same" {
      backend = "b"
      url = "http://b.example:80/y"
    }
    request "inline" {
      url = "https://c.example:8443/z"
      backend { origin = "https://c.example" }
    }
  }
}
definitions {
  backend "b" { origin = "http://b.example" }
}
`;
    expect(await problems(source)).toEqual([
      'portico.hcl:5,13-37: Invalid url; The host of url ("other.example") must equal the origin of backend "b" ("http://b.example").',
      'portico.hcl:12,13-39: Invalid url; The host of url ("c.example:8443") must equal the origin of backend "anonymous_13_7" ("https://c.example").',
    ]);
  });

  it('applies the beta_required_permission rule of apis with several endpoints', async () => {
    const source = `server {
  api "mixed" {
    endpoint "/a" {
      beta_required_permission = "read"
      ${OK}
    }
    endpoint "/b" {
      disable_access_control = []
      ${OK}
    }
    endpoint "/c" {
      ${OK}
    }
  }
  api "api-wide" {
    base_path = "/w"
    beta_required_permission = "w"
    endpoint "/a" {
      beta_required_permission = "read"
      ${OK}
    }
    endpoint "/b" {
      ${OK}
    }
  }
  api "none" {
    base_path = "/n"
    endpoint "/a" {
      ${OK}
    }
    endpoint "/b" {
      ${OK}
    }
  }
}
`;
    expect(await problems(source)).toEqual([
      'portico.hcl:15,5-18: Missing beta_required_permission; api with label "mixed" has endpoint without required permission: set beta_required_permission or disable_access_control here, as the endpoint at portico.hcl:3,5 sets beta_required_permission.',
    ]);
  });

  it('checks log_format, log_level, request_id_format and secure_cookies values', async () => {
    const source = `server {}\nsettings {\n  log_format = "xml"\n  log_level = "verbose"\n  request_id_format = "uuid"\n  secure_cookies = "remove"\n}\n`;
    expect(await problems(source)).toEqual([
      'portico.hcl:3,16-21: Invalid attribute value; Invalid value for attribute "log_format": must be one of "common", "json", got "xml".',
      'portico.hcl:4,15-24: Invalid attribute value; Invalid value for attribute "log_level": must be one of "info", "panic", "fatal", "error", "warn", "debug", "trace", got "verbose".',
      'portico.hcl:5,23-29: Invalid attribute value; Invalid value for attribute "request_id_format": must be one of "common", "uuid4", got "uuid".',
      'portico.hcl:6,20-28: Invalid attribute value; Invalid value for attribute "secure_cookies": must be one of "", "strip", got "remove".',
    ]);
  });

  it('refuses a backend attribute together with a backend block, and a proxy without any backend', async () => {
    const source = `server {
  endpoint "/" {
    proxy {
      backend = "b"
      backend { origin = "http://x" }
    }
    request "r" {
    }
  }
}
definitions {
  backend "b" { origin = "http://b" }
}
`;
    expect(await problems(source)).toEqual([
      'portico.hcl:3,5-10: Multiple definitions of backend are not allowed in proxy.; Set either the backend attribute or a backend block.',
      'portico.hcl:7,5-16: Missing backend; A request block needs a backend attribute, a backend block or a url.',
    ]);
  });

  it('refuses backend origins that are not http(s) scheme://host[:port]', async () => {
    const source = `server {}\ndefinitions {\n  backend "a" { origin = "ftp://x" }\n  backend "b" { origin = "http://x/api" }\n  backend "b" { origin = "http://y" }\n}\n`;
    expect(await problems(source)).toEqual([
      'portico.hcl:3,26-35: Invalid backend.origin value; valid http scheme required for origin: "ftp://x"; write http://host[:port] or https://host[:port].',
      'portico.hcl:4,26-40: Invalid backend.origin value; origin must be scheme://host[:port] only, got "http://x/api"; use path_prefix for a path and basic_auth for credentials.',
      'portico.hcl:5,11-14: Duplicate backend; backend labels must be unique: "b" is already defined at portico.hcl:4,11.',
    ]);
  });

  it('checks endpoint patterns and base paths', async () => {
    const source = `server {
  endpoint "x" {
    ${OK}
  }
  endpoint "/a/../b" {
    ${OK}
  }
  endpoint "/a/**/b" {
    ${OK}
  }
  api {
    base_path = "/./x"
  }
}
`;
    expect(await problems(source)).toEqual([
      'portico.hcl:2,12-15: Invalid endpoint pattern; endpoint path pattern must start with "/", got "x".',
      'portico.hcl:7,12-21: Invalid endpoint pattern; endpoint path pattern must not contain "." or ".." segments.',
      'portico.hcl:12,12-21: Invalid endpoint pattern; endpoint path pattern may use "**" only as its whole last segment ("/**").',
      'portico.hcl:18,17-23: Invalid base_path; base_path must not contain "." or ".." segments, got "/./x".',
    ]);
  });

  it('refuses unknown error types and a type handled twice in one block', async () => {
    const source = `server {
  endpoint "/" {
    ${OK}
    error_handler "backend_timeout" "nope" {
      ${OK}
    }
    error_handler "backend_timeout" {
      ${OK}
    }
  }
}
`;
    const messages = await problems(source);
    expect(messages[0]).toMatch(/^portico\.hcl:6,5-43: Invalid error_handler label; "nope" is not an error type; use one of "\*", "access_control", /);
    expect(messages.slice(1)).toEqual([
      'portico.hcl:11,5-36: Duplicate error_handler; The error type "backend_timeout" is already handled by the error_handler at portico.hcl:6,5.',
    ]);
  });

  it('refuses two cors blocks in one server of one file', async () => {
    expect(await problems('server {\n  cors { allowed_origins = "*" }\n  cors { allowed_origins = "x" }\n}\n')).toEqual([
      'portico.hcl:3,3-7: Duplicate cors block; Only one "cors" block is allowed. Another was defined at portico.hcl:2,3.',
    ]);
  });

  it('reports problems of every kind in one run, in file order', async () => {
    const source = `server {\n  hosts = ["bad host"]\n  endpoint "/" {}\n}\nsettings { log_level = "loud" }\n`;
    expect(await problems(source)).toHaveLength(3);
  });
});
