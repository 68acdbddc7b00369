import { describe, expect, it } from 'vitest';
import { problems } from './testing/config-files.js';

const server = 'server {\n  hosts = ["*:8080", "*:9000"]\n}\n';

describe('settings.https_dev_proxy at load', () => {
  it('refuses malformed entries and ports out of range where each is written', async () => {
    expect(await problems(`${server}settings {\n  https_dev_proxy = ["8443", "8443:8080:1", "0:8080", "8443:70000", "a:b"]\n}\n`)).toEqual([
      'portico.hcl:5,22-28: Invalid https_dev_proxy entry; "8443" is not "<tls port>:<plain port>" with ports from 1 to 65535; write e.g. "8443:8080".',
      'portico.hcl:5,30-43: Invalid https_dev_proxy entry; "8443:8080:1" is not "<tls port>:<plain port>" with ports from 1 to 65535; write e.g. "8443:8080".',
      'portico.hcl:5,45-53: Invalid https_dev_proxy entry; "0:8080" is not "<tls port>:<plain port>" with ports from 1 to 65535; write e.g. "8443:8080".',
      'portico.hcl:5,55-67: Invalid https_dev_proxy entry; "8443:70000" is not "<tls port>:<plain port>" with ports from 1 to 65535; write e.g. "8443:8080".',
      'portico.hcl:5,69-74: Invalid https_dev_proxy entry; "a:b" is not "<tls port>:<plain port>" with ports from 1 to 65535; write e.g. "8443:8080".',
    ]);
  });

  it('refuses a TLS port given twice, a TLS port the servers listen on, and a plain port no server listens on', async () => {
    expect(await problems(`${server}settings {\n  https_dev_proxy = ["8443:8080", "8443:9000", "9000:8080", "8444:7000"]\n}\n`)).toEqual([
      'portico.hcl:5,35-46: Duplicate https_dev_proxy port; TLS port 8443 is already mapped by the entry at portico.hcl:5,22; give each TLS port once.',
      'portico.hcl:5,48-59: Invalid https_dev_proxy entry; TLS port 9000 is a port the servers already listen on (plain HTTP); choose a port no server block lists for TLS.',
      "portico.hcl:5,61-72: Invalid https_dev_proxy entry; no server listens on port 7000, so TLS on 8444 would serve nothing; the plain port must be one of the servers' ports (8080, 9000).",
    ]);
  });

  it('accepts one TLS port per plain port of the servers', async () => {
    expect(await problems(`${server}settings {\n  https_dev_proxy = ["8443:8080", "9443:9000"]\n}\n`)).toEqual([]);
  });
});
