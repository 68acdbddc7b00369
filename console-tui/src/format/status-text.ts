import type { ComponentStatus, SystemStatus } from '@portico/daemon/control';
import { formatClockOrDate, formatDuration, secondsSince } from './duration.js';
import { componentLabel, labelText, type Label } from './state-label.js';

export interface ComponentRow {
  name: string;
  label: Label;
  /** How long the component has been in its state. */
  age: string;
  detail: string;
}

export function componentRows(components: readonly ComponentStatus[], nowMs: number): ComponentRow[] {
  return components.map((c) => ({
    name: c.name,
    label: componentLabel(c.state),
    age: formatDuration(secondsSince(c.since, nowMs)),
    detail: c.detail ?? '',
  }));
}

export function storeText(store: SystemStatus['store']): string {
  return `${store.kind} ${store.location} (schema ${store.schemaVersion})`;
}

/** The daemon facts as label/value pairs, shared by the text output and the status view. */
export function daemonFacts(status: SystemStatus, uptimeSeconds: number, nowMs: number): Array<[string, string]> {
  return [
    ['version', status.version],
    ['mode', status.mode],
    ['pid', String(status.pid)],
    ['uptime', `${formatDuration(uptimeSeconds)} (since ${formatClockOrDate(status.startedAt, nowMs)})`],
    ['store', storeText(status.store)],
    ['boot', status.bootId],
  ];
}

/** Plain status for a pipe or a log: no colour, no truncation, one component per line. */
export function formatStatusText(status: SystemStatus, { url, nowMs }: { url: string; nowMs: number }): string {
  const lines = [`Portico daemon at ${url}`];
  for (const [name, value] of daemonFacts(status, status.uptimeSeconds, nowMs)) lines.push(`  ${name.padEnd(8)} ${value}`);
  lines.push('');
  const rows = componentRows(status.components, nowMs);
  const nameWidth = Math.max(9, ...rows.map((r) => r.name.length));
  lines.push(`  ${'COMPONENT'.padEnd(nameWidth)}  ${'STATE'.padEnd(12)}  ${'FOR'.padEnd(8)}  DETAIL`);
  for (const row of rows) {
    lines.push(`  ${row.name.padEnd(nameWidth)}  ${labelText(row.label).padEnd(12)}  ${row.age.padEnd(8)}  ${row.detail}`.trimEnd());
  }
  if (rows.length === 0) lines.push('  (no components registered)');
  return lines.join('\n') + '\n';
}
