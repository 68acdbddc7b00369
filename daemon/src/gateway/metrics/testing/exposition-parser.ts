/**
 * A strict reader of the Prometheus text format 0.0.4 for the tests: every line must match
 * the grammar (HELP, TYPE, comment, or sample with escaped label values), TYPE comes before a
 * family's samples, a family's samples are contiguous, no series repeats, and histograms are
 * cumulative with `+Inf` equal to `_count`. Throws with the line number on the first violation.
 */

export interface ParsedSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface ParsedFamily {
  readonly name: string;
  type: string | null;
  help: string | null;
  readonly samples: ParsedSample[];
}

export interface ParsedExposition {
  readonly families: ReadonlyMap<string, ParsedFamily>;
  readonly samples: readonly ParsedSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const VALUE = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]Inf|NaN)$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function familyOf(name: string, families: ReadonlyMap<string, ParsedFamily>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length);
      if (families.get(base)?.type === 'histogram' || families.get(base)?.type === 'summary') return base;
    }
  }
  return name;
}

function parseValue(text: string, where: string): number {
  if (!VALUE.test(text)) throw new Error(`${where}: "${text}" is not a sample value`);
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** Reads `{a="x",b="y"}` from the start of `rest`; returns the labels and what follows. */
function parseLabels(rest: string, where: string): { labels: Record<string, string>; after: string } {
  const labels: Record<string, string> = {};
  let i = 1;
  for (;;) {
    if (rest[i] === '}') return { labels, after: rest.slice(i + 1) };
    const name = LABEL_NAME.exec(rest.slice(i))?.[0];
    if (!name) throw new Error(`${where}: expected a label name at column ${i + 1}`);
    if (name in labels) throw new Error(`${where}: label ${name} repeated`);
    i += name.length;
    if (rest[i] !== '=' || rest[i + 1] !== '"') throw new Error(`${where}: expected =" after label ${name}`);
    i += 2;
    let value = '';
    for (;;) {
      const c = rest[i];
      if (c === undefined || c === '\n') throw new Error(`${where}: unterminated value of label ${name}`);
      if (c === '"') break;
      if (c === '\\') {
        const next = rest[i + 1];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else throw new Error(`${where}: invalid escape \\${next ?? ''} in label ${name}`);
        i += 2;
        continue;
      }
      value += c;
      i += 1;
    }
    labels[name] = value;
    i += 1;
    if (rest[i] === ',') i += 1;
    else if (rest[i] !== '}') throw new Error(`${where}: expected , or } after the value of label ${name}`);
  }
}

function checkHistograms(families: ReadonlyMap<string, ParsedFamily>): void {
  for (const family of families.values()) {
    if (family.type !== 'histogram') continue;
    const series = new Map<string, { buckets: [number, number][]; count: number | null }>();
    for (const s of family.samples) {
      const { le, ...rest } = s.labels;
      const key = JSON.stringify(Object.entries(rest).sort());
      const entry = series.get(key) ?? { buckets: [], count: null };
      series.set(key, entry);
      if (s.name.endsWith('_bucket')) {
        if (le === undefined) throw new Error(`${family.name}: a _bucket sample without le`);
        entry.buckets.push([le === '+Inf' ? Infinity : Number(le), s.value]);
      } else if (s.name.endsWith('_count')) entry.count = s.value;
    }
    for (const [key, { buckets, count }] of series) {
      const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
      sorted.forEach(([, v], i) => {
        if (i > 0 && v < (sorted[i - 1]?.[1] ?? 0)) throw new Error(`${family.name}${key}: buckets are not cumulative`);
      });
      const inf = sorted.at(-1);
      if (!inf || inf[0] !== Infinity) throw new Error(`${family.name}${key}: no le="+Inf" bucket`);
      if (inf[1] !== count) throw new Error(`${family.name}${key}: +Inf bucket ${inf[1]} differs from _count ${String(count)}`);
    }
  }
}

export function parseExposition(payload: string): ParsedExposition {
  if (payload !== '' && !payload.endsWith('\n')) throw new Error('the payload must end with a line feed');
  const families = new Map<string, ParsedFamily>();
  const samples: ParsedSample[] = [];
  const seen = new Set<string>();
  const closed = new Set<string>();
  let currentFamily: string | null = null;
  const family = (name: string): ParsedFamily => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, type: null, help: null, samples: [] }));
    return f;
  };
  const enter = (name: string, where: string): void => {
    if (currentFamily === name) return;
    if (currentFamily !== null) closed.add(currentFamily);
    if (closed.has(name)) throw new Error(`${where}: samples of ${name} are not contiguous`);
    currentFamily = name;
  };
  payload
    .split('\n')
    .slice(0, -1)
    .forEach((line, index) => {
      const where = `line ${index + 1} (${JSON.stringify(line)})`;
      if (line.trim() === '') return;
      if (line.startsWith('#')) {
        const meta = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
        if (!meta) return; // a plain comment
        const [, kind, name = '', rest = ''] = meta;
        if (!METRIC_NAME.test(name) || METRIC_NAME.exec(name)?.[0] !== name) throw new Error(`${where}: invalid metric name`);
        const f = family(name);
        enter(name, where);
        if (kind === 'TYPE') {
          if (!TYPES.has(rest)) throw new Error(`${where}: unknown type ${rest}`);
          if (f.type !== null || f.samples.length > 0) throw new Error(`${where}: TYPE must come once, before the samples`);
          f.type = rest;
        } else {
          if (f.help !== null) throw new Error(`${where}: HELP repeated`);
          if (rest.replace(/\\[\\n]/g, '').includes('\\')) throw new Error(`${where}: invalid escape in HELP`);
          f.help = rest.replace(/\\(\\|n)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
        }
        return;
      }
      const name = METRIC_NAME.exec(line)?.[0];
      if (!name) throw new Error(`${where}: expected a metric name`);
      let rest = line.slice(name.length);
      let labels: Record<string, string> = {};
      if (rest.startsWith('{')) ({ labels, after: rest } = parseLabels(rest, where));
      const fields = /^ +(\S+)(?: +(-?\d+))? *$/.exec(rest);
      if (!fields) throw new Error(`${where}: expected " value [timestamp]" after the name and labels`);
      const sample: ParsedSample = { name, labels, value: parseValue(fields[1] ?? '', where) };
      const familyName = familyOf(name, families);
      enter(familyName, where);
      const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
      if (seen.has(key)) throw new Error(`${where}: series repeated`);
      seen.add(key);
      family(familyName).samples.push(sample);
      samples.push(sample);
    });
  checkHistograms(families);
  return { families, samples };
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none. */
export function sampleValue(parsed: ParsedExposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const matches = parsed.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}; add labels`);
  return matches[0]?.value;
}
