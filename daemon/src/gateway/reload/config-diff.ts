import { basename } from 'node:path';
import type { EndpointConfig, GatewayConfig, ServerConfig } from '../config/model.js';
import type { NameChanges, ReloadDiff } from '../control/control-types.js';
import { builtBackend } from '../config/backend-reuse.js';
import { plural } from '../../display/counts.js';

/** How many names a summary part lists before `…`. */
const NAMED = 3;

/**
 * What changed between the serving configuration and a new one, by server, endpoint and
 * backend. Source positions are left out of the comparison, so adding a comment or a blank
 * line above a block does not mark it changed.
 */
export function diffConfigs(before: GatewayConfig | null, after: GatewayConfig, changedFiles: readonly string[]): ReloadDiff {
  const servers = compare(serverMap(before), serverMap(after));
  const endpoints = compare(endpointMap(before), endpointMap(after));
  const backends = compare(new Map(Object.entries(before?.backends ?? {})), new Map(Object.entries(after.backends)));
  const files = [...changedFiles];
  const unchanged = [servers, endpoints, backends].every(isEmpty) && files.length === 0;
  const parts = [...part(servers, 'server'), ...part(endpoints, 'endpoint'), ...part(backends, 'backend')];
  // Files are named only when the model did not change (a comment, an error_file's content).
  if (parts.length === 0 && files.length > 0) parts.push(`~${plural(files.length, 'file')}${names(files.map((f) => basename(f)))}`);
  return { servers, endpoints, backends, files, unchanged, summary: unchanged ? 'unchanged' : parts.join(', ') };
}

function serverKey(server: ServerConfig, index: number): string {
  if (server.name) return server.name;
  const hosts = server.hosts.map((h) => `${h.host}:${h.port}`).join(',');
  return hosts || `server #${index + 1}`;
}

/** Servers without their endpoints (those are compared on their own), so a new endpoint does not also mark its server changed. */
function serverMap(config: GatewayConfig | null): Map<string, unknown> {
  return new Map((config?.servers ?? []).map((s, i) => [serverKey(s, i), { ...s, endpoints: [], apis: s.apis.map((a) => ({ ...a, endpoints: [] })) }]));
}

/** Endpoints by path; with several servers, the path is prefixed by the server's name. */
function endpointMap(config: GatewayConfig | null): Map<string, EndpointConfig> {
  const out = new Map<string, EndpointConfig>();
  const servers = config?.servers ?? [];
  servers.forEach((server, i) => {
    const prefix = servers.length > 1 ? `${serverKey(server, i)} ` : '';
    for (const endpoint of [...server.endpoints, ...server.apis.flatMap((a) => a.endpoints)]) out.set(`${prefix}${endpoint.path}`, endpoint);
  });
  return out;
}

function compare(before: Map<string, unknown>, after: Map<string, unknown>): NameChanges {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const [name, value] of after) {
    const old = before.get(name);
    if (old === undefined) added.push(name);
    // The same object (a backend the load took unchanged from the previous one, or its copy at a
    // moved block, which differs only in its range) is the same form.
    else if (builtBackend(old as object) !== builtBackend(value as object) && canonical(old) !== canonical(value)) changed.push(name);
  }
  for (const name of before.keys()) if (!after.has(name)) removed.push(name);
  return { added, removed, changed };
}

function isEmpty(c: NameChanges): boolean {
  return c.added.length + c.removed.length + c.changed.length === 0;
}

function part(c: NameChanges, noun: string): string[] {
  const out: string[] = [];
  if (c.added.length) out.push(`+${plural(c.added.length, noun)}${names(c.added)}`);
  if (c.removed.length) out.push(`-${plural(c.removed.length, noun)}${names(c.removed)}`);
  if (c.changed.length) out.push(`~${plural(c.changed.length, noun)}${names(c.changed)}`);
  return out;
}

function names(list: readonly string[]): string {
  const shown = list.slice(0, NAMED).join(', ');
  return ` (${shown}${list.length > NAMED ? ', …' : ''})`;
}

/** A stable text form of model data without source ranges (keys named `range` or ending in `Range`). */
export function canonical(value: unknown): string {
  const seen = new WeakSet<object>();
  const walk = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? v.toString() : v;
    if (seen.has(v)) return '[cycle]';
    seen.add(v);
    if (v instanceof Map) return { map: [...v.entries()].map(([k, x]) => [walk(k), walk(x)]) };
    if (v instanceof Set) return { set: [...v].map(walk) };
    if (Array.isArray(v)) return v.map(walk);
    const out: Record<string, unknown> = {};
    const ctor = (v as { constructor?: { name?: string } }).constructor?.name;
    if (ctor && ctor !== 'Object') out['$type'] = ctor;
    for (const key of Object.keys(v).sort()) {
      if (key === 'range' || key.endsWith('Range')) continue;
      out[key] = walk((v as Record<string, unknown>)[key]);
    }
    return out;
  };
  return JSON.stringify(walk(value));
}
