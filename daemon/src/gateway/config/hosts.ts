import type { Block, Range } from '../../hcl/index.js';
import type { LoadScope } from './attr-reader.js';
import { elementRange } from './build-common.js';
import { headerRange, where } from './diagnostics.js';
import type { HostPort } from './model.js';

/** The peer's accepted forms: `host`, `host:port`, `host:*`, `*`, `*:port` (host names case-insensitive). */
const HOST = /^([a-z0-9.-]+|\*)(:\*|:\d{1,5})?$/;

export interface ServerHosts {
  readonly block: Block;
  readonly hosts: readonly HostPort[];
  /** Where each host was written, parallel to `hosts`; the server header for the implicit default. */
  readonly ranges: readonly Range[];
  readonly explicit: boolean;
}

/** A server's `hosts`, normalised to host:port with `settings.default_port` (`*:<default_port>` when unset). */
export function serverHosts(block: Block, defaultPort: number, scope: LoadScope): ServerHosts {
  const r = scope.reader(block.body, 'server');
  const list = r.value<string[]>('hosts');
  const expr = r.attr('hosts')?.expr;
  // An empty list is no list, as for the peer: the default host, and required when there are several servers.
  if (list === undefined || list.length === 0) return { block, hosts: [{ host: '*', port: defaultPort }], ranges: [headerRange(block)], explicit: false };
  const hosts: HostPort[] = [];
  const ranges: Range[] = [];
  list.forEach((text, i) => {
    const range = elementRange(expr, i) ?? headerRange(block);
    const match = HOST.exec(text.toLowerCase());
    const port = match?.[2] === undefined || match[2] === ':*' ? defaultPort : Number(match[2].slice(1));
    if (!match || port > 65535) {
      scope.diags.error('Invalid host', `host format is invalid: ${JSON.stringify(text)}; write host, host:port, host:*, * or *:port.`, range);
      return;
    }
    const host = match[1] as string;
    if (hosts.some((h) => h.host === host && h.port === port)) return;
    hosts.push({ host, port });
    ranges.push(range);
  });
  return { block, hosts, ranges, explicit: true };
}

/** Several servers each need `hosts`, and no host:port may be served by two of them. */
export function checkServerHosts(servers: readonly ServerHosts[], scope: LoadScope): void {
  const owners = new Map<string, Range>();
  for (const s of servers) {
    if (servers.length > 1 && !s.explicit) {
      const name = s.block.labels[0];
      scope.diags.error(
        'Missing required argument',
        `The argument "hosts" is required when there is more than one server block${name === undefined ? '' : ` (server "${name}")`}.`,
        headerRange(s.block),
      );
      continue;
    }
    s.hosts.forEach((h, i) => {
      const key = `${h.host}:${h.port}`;
      const range = s.ranges[i] as Range;
      const previous = owners.get(key);
      if (previous) {
        scope.diags.error('Duplicate host', `conflict: host "${h.host}" already defined for port ${h.port} by the server at ${where(previous)}.`, range);
        return;
      }
      owners.set(key, range);
    });
  }
}
