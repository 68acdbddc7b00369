/**
 * The Prometheus text exposition format, version 0.0.4: `# HELP` / `# TYPE` lines, then one
 * `name{label="value",...} value` line per sample. Written here because the format is small
 * and a client library would be the daemon's only reason to carry one.
 */

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface Sample {
  /** The family name plus a suffix (`_bucket`, `_sum`, `_count`) for histograms. */
  readonly name: string;
  /** Label names and values in the order they are written. */
  readonly labels: readonly (readonly [string, string])[];
  readonly value: number;
}

export interface FamilySnapshot {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly samples: readonly Sample[];
}

/** Label values escape backslash, double quote and line feed (the only escapes the format has). */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** HELP text escapes backslash and line feed (a double quote stays as it is). */
export function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}

/** Go's ParseFloat reads JS number text, except the infinities and NaN, which have their own spelling. */
export function formatSampleValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function formatSample(sample: Sample): string {
  const labels = sample.labels.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',');
  return `${sample.name}${labels ? `{${labels}}` : ''} ${formatSampleValue(sample.value)}`;
}

/** The whole payload: each family's HELP and TYPE, then its samples; ends with a line feed. */
export function renderExposition(families: readonly FamilySnapshot[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) lines.push(formatSample(sample));
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/**
 * Adds the counters and histograms other processes counted (gateway serving processes) into
 * `own`: samples with the same name and labels are summed (histogram buckets are cumulative
 * in each, so their sums are too), samples only another process has are appended, and a family
 * only another process has is added after `own`'s. Gauges stay `own`'s: a state or a figure of
 * one process does not add up.
 */
export function mergeFamilies(own: readonly FamilySnapshot[], others: readonly (readonly FamilySnapshot[])[]): FamilySnapshot[] {
  const merged = new Map<string, { family: FamilySnapshot; samples: Map<string, Sample> }>();
  const sampleKey = (sample: Sample): string => `${sample.name}\u0000${sample.labels.map(([n, v]) => `${n}=${v}`).join('\u0000')}`;
  const add = (family: FamilySnapshot, summed: boolean): void => {
    let entry = merged.get(family.name);
    if (!entry) merged.set(family.name, (entry = { family, samples: new Map() }));
    for (const sample of family.samples) {
      const key = sampleKey(sample);
      const before = entry.samples.get(key);
      entry.samples.set(key, before && summed ? { ...sample, value: before.value + sample.value } : before ?? sample);
    }
  };
  for (const family of own) add(family, false);
  for (const families of others) for (const family of families) if (family.type !== 'gauge') add(family, true);
  return [...merged.values()].map(({ family, samples }) => ({ ...family, samples: [...samples.values()] }));
}
