/**
 * Labelled counters, histograms and collected gauges: the few instruments the gateway's
 * metrics need. Series are keyed by their label values; every label value the gateway passes
 * comes from the configuration (names, patterns) or a small closed set (methods, codes), so
 * the number of series stays bounded.
 */
import type { FamilySnapshot, Sample } from './exposition.js';

export type LabelValues = readonly string[];

/** Default buckets of the brief (seconds): 5ms to 10s. */
export const DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Instrument {
  readonly name: string;
  snapshot(): FamilySnapshot;
}

function checkArity(name: string, labelNames: readonly string[], values: LabelValues): void {
  if (values.length !== labelNames.length) throw new Error(`metric ${name}: expected ${labelNames.length} label values (${labelNames.join(', ')}), got ${values.length}`);
}

/** Label values joined by a separator no label value carries (they are names, patterns, methods and codes). */
export function keyOf(values: LabelValues): string {
  return values.length === 1 ? (values[0] as string) : values.join('\u0000');
}

function pairs(labelNames: readonly string[], values: LabelValues): [string, string][] {
  return labelNames.map((n, i) => [n, values[i] ?? '']);
}

export class Counter implements Instrument {
  readonly #series = new Map<string, { values: LabelValues; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  /** `key` is keyOf(values) when the caller kept it (label values it counts often). */
  inc(values: LabelValues, by = 1, key = keyOf(values)): void {
    checkArity(this.name, this.labelNames, values);
    const series = this.#series.get(key);
    if (series) series.value += by;
    else this.#series.set(key, { values: [...values], value: by });
  }

  /** Makes the series exist at 0, so `rate()` sees its first increment. */
  touch(values: LabelValues): void {
    this.inc(values, 0);
  }

  value(values: LabelValues): number {
    return this.#series.get(keyOf(values))?.value ?? 0;
  }

  snapshot(): FamilySnapshot {
    const samples = [...this.#series.values()].map((s): Sample => ({ name: this.name, labels: pairs(this.labelNames, s.values), value: s.value }));
    return { name: this.name, help: this.help, type: 'counter', samples };
  }
}

interface HistogramSeries {
  readonly values: LabelValues;
  /** Per-bucket counts, not cumulative (cumulated when rendered). */
  readonly counts: number[];
  sum: number;
  count: number;
}

export class Histogram implements Instrument {
  readonly #series = new Map<string, HistogramSeries>();
  readonly buckets: readonly number[];

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    buckets: readonly number[] = DURATION_BUCKETS,
  ) {
    if (labelNames.includes('le')) throw new Error(`metric ${name}: a histogram may not have a label named le`);
    this.buckets = [...buckets].sort((a, b) => a - b);
  }

  /** `key` is keyOf(values) when the caller kept it. */
  observe(values: LabelValues, value: number, key = keyOf(values)): void {
    checkArity(this.name, this.labelNames, values);
    if (!Number.isFinite(value)) return;
    let series = this.#series.get(key);
    if (!series) {
      series = { values: [...values], counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    const index = this.buckets.findIndex((upper) => value <= upper);
    if (index !== -1) series.counts[index] = (series.counts[index] ?? 0) + 1;
    series.sum += value;
    series.count += 1;
  }

  snapshot(): FamilySnapshot {
    const samples: Sample[] = [];
    for (const series of this.#series.values()) {
      const base = pairs(this.labelNames, series.values);
      let cumulative = 0;
      this.buckets.forEach((upper, i) => {
        cumulative += series.counts[i] ?? 0;
        samples.push({ name: `${this.name}_bucket`, labels: [...base, ['le', String(upper)]], value: cumulative });
      });
      samples.push({ name: `${this.name}_bucket`, labels: [...base, ['le', '+Inf']], value: series.count });
      samples.push({ name: `${this.name}_sum`, labels: base, value: series.sum });
      samples.push({ name: `${this.name}_count`, labels: base, value: series.count });
    }
    return { name: this.name, help: this.help, type: 'histogram', samples };
  }
}

/** A gauge read at scrape time (health states, memory), so it is never stale; `counter` for a total kept elsewhere (CPU time). */
export class CollectedGauge implements Instrument {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly collect: () => Iterable<{ readonly values: LabelValues; readonly value: number }>,
    readonly type: 'gauge' | 'counter' = 'gauge',
  ) {}

  snapshot(): FamilySnapshot {
    const samples: Sample[] = [];
    for (const { values, value } of this.collect()) {
      checkArity(this.name, this.labelNames, values);
      samples.push({ name: this.name, labels: pairs(this.labelNames, values), value });
    }
    return { name: this.name, help: this.help, type: this.type, samples };
  }
}
