import { describe, expect, it } from 'vitest';
import { loadOk, problems } from '../config/testing/config-files.js';

describe('websockets in the configuration', () => {
  it('takes the attribute or the block, with its timeout and header modifiers', async () => {
    const config = await loadOk({
      'portico.hcl': `server {
  endpoint "/a" {
    proxy {
      url = "http://b/"
      websockets = true
    }
  }
  endpoint "/b" {
    proxy {
      url = "http://b/"
      websockets {
        timeout = "2m"
        set_request_headers = { x-a = "1" }
        set_response_headers = { x-b = "2" }
      }
    }
  }
  endpoint "/c" {
    proxy {
      url = "http://b/"
      websockets = false
    }
  }
  endpoint "/d" {
    proxy {
      url = "http://b/"
      websockets {
        timeout = "0"
      }
    }
  }
}
`,
    });
    const [a, b, c, d] = config.servers[0]?.endpoints ?? [];
    expect(a?.proxies[0]?.websockets).toMatchObject({ timeout: null, modifiers: { setRequestHeaders: null } });
    expect(b?.proxies[0]?.websockets).toMatchObject({
      timeout: 120_000,
      modifiers: { setRequestHeaders: { kind: 'static', value: { 'x-a': '1' } }, setResponseHeaders: { kind: 'static', value: { 'x-b': '2' } } },
    });
    expect(c?.proxies[0]?.websockets).toBeNull();
    // A timeout of 0 is none, not a connection closed at once.
    expect(d?.proxies[0]?.websockets).toMatchObject({ timeout: null });
  });

  it('refuses the attribute and the block together', async () => {
    expect(await problems('server {\n  endpoint "/" {\n    proxy {\n      url = "http://b/"\n      websockets = true\n      websockets {}\n    }\n  }\n}\n')).toEqual([
      'portico.hcl:5,7-17: Conflicting websockets; websockets can be set either as an attribute or as a block, not both; remove the attribute.',
    ]);
  });

  it('refuses websockets in two proxies of one endpoint', async () => {
    expect(await problems('server {\n  endpoint "/" {\n    proxy {\n      url = "http://b/"\n      websockets = true\n    }\n    proxy "second" {\n      url = "http://c/"\n      websockets {}\n    }\n  }\n}\n')).toEqual([
      'portico.hcl:9,7-17: Invalid websockets; websockets can be enabled in one proxy of an endpoint only: proxy "default" already has them at portico.hcl:5,7.',
    ]);
  });

  it('takes websockets in the default proxy only, alone in its endpoint (the spec\'s rule)', async () => {
    const labelled = await problems('server {\n  endpoint "/" {\n    proxy "ws" {\n      url = "http://b/"\n      websockets = true\n    }\n  }\n}\n');
    expect(labelled).toContainEqual(expect.stringMatching(/^portico\.hcl:5,7-24: Invalid websockets; websockets are served by the default \(unlabelled\) proxy only; proxy "ws" has a label\.$/));
    const crowded = await problems('server {\n  endpoint "/" {\n    proxy {\n      url = "http://b/"\n      websockets = true\n    }\n    request "r" {\n      url = "http://c/"\n    }\n  }\n}\n');
    expect(crowded).toEqual([expect.stringMatching(/^portico\.hcl:5,7-24: Invalid websockets; an endpoint whose proxy serves websockets can have no other proxy, request or response block\.$/)]);
  });

  it('refuses websockets in the proxy of an error handler', async () => {
    expect(await problems('server {\n  endpoint "/" {\n    proxy {\n      url = "http://b/"\n    }\n    error_handler {\n      proxy {\n        url = "http://c/"\n        websockets = true\n      }\n    }\n  }\n}\n')).toEqual([
      'portico.hcl:9,9-26: Invalid websockets; websockets are served by a proxy of an endpoint, not of an error_handler; remove websockets here.',
    ]);
  });

  it('refuses a websockets block attribute that is not one of its own', async () => {
    const found = await problems('server {\n  endpoint "/" {\n    proxy {\n      url = "http://b/"\n      websockets {\n        set_query_params = { a = "1" }\n      }\n    }\n  }\n}\n');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^portico\.hcl:6,9-25: Unsupported argument; /);
  });
});
