import type { Range } from '../../hcl/index.js';
import type { AttrReader, LoadScope } from './attr-reader.js';
import { elementRange } from './build-common.js';
import { where } from './diagnostics.js';
import type { DevProxyPort } from './model.js';
import type { ServerHosts } from './hosts.js';

const ENTRY = /^(\d{1,5}):(\d{1,5})$/;

/** `settings.https_dev_proxy` as `"<tls port>:<plain port>"` entries, each refused where written when malformed or repeated. */
export function readDevProxyPorts(r: AttrReader, scope: LoadScope): DevProxyPort[] {
  const list = r.value<string[]>('https_dev_proxy') ?? [];
  const expr = r.attr('https_dev_proxy')?.expr;
  const entries: DevProxyPort[] = [];
  list.forEach((text, i) => {
    const range = elementRange(expr, i) as Range;
    const match = ENTRY.exec(text.trim());
    const tlsPort = Number(match?.[1]);
    const plainPort = Number(match?.[2]);
    if (!match || !validPort(tlsPort) || !validPort(plainPort)) {
      scope.diags.error('Invalid https_dev_proxy entry', `${JSON.stringify(text)} is not "<tls port>:<plain port>" with ports from 1 to 65535; write e.g. "8443:8080".`, range);
      return;
    }
    const earlier = entries.find((e) => e.tlsPort === tlsPort);
    if (earlier) {
      scope.diags.error('Duplicate https_dev_proxy port', `TLS port ${tlsPort} is already mapped by the entry at ${where(earlier.range)}; give each TLS port once.`, range);
      return;
    }
    entries.push({ tlsPort, plainPort, range });
  });
  return entries;
}

/** Each TLS port must be free of servers, and each plain port one a server listens on (else TLS would serve nothing). */
export function checkDevProxyPorts(entries: readonly DevProxyPort[], servers: readonly ServerHosts[], scope: LoadScope): void {
  const plainPorts = new Set(servers.flatMap((s) => s.hosts.map((h) => h.port)));
  const listed = [...plainPorts].sort((a, b) => a - b).join(', ');
  for (const entry of entries) {
    if (plainPorts.has(entry.tlsPort)) {
      scope.diags.error('Invalid https_dev_proxy entry', `TLS port ${entry.tlsPort} is a port the servers already listen on (plain HTTP); choose a port no server block lists for TLS.`, entry.range);
    }
    if (!plainPorts.has(entry.plainPort)) {
      scope.diags.error('Invalid https_dev_proxy entry', `no server listens on port ${entry.plainPort}, so TLS on ${entry.tlsPort} would serve nothing; the plain port must be one of the servers' ports (${listed}).`, entry.range);
    }
  }
}

function validPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}
