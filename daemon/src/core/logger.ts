export type LogFormat = 'common' | 'json';
export type LogLevel = 'panic' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

export const LOG_LEVELS: readonly LogLevel[] = ['panic', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];
const RANK: Record<LogLevel, number> = { panic: 0, fatal: 1, error: 2, warn: 3, info: 4, debug: 5, trace: 6 };

export type LogFields = Record<string, unknown>;

/** Keys whose values are never written, whatever a caller passes. */
const SECRET_KEY = /(token|secret|password|passwd|authorization|cookie|api[_-]?key|private[_-]?key)/i;

export interface LogSink {
  write(line: string): void;
  /** Writes what the sink holds back, if anything (called after an error line). */
  flush?(): void;
}

export interface LoggerOptions {
  format?: LogFormat;
  level?: LogLevel;
  pretty?: boolean;
  sink?: LogSink;
  /** Fields on every line, e.g. `{ component: 'control' }`. */
  base?: LogFields;
  /** Called for every line written at warn or above; feeds the event bus. */
  onNotice?: (level: 'warn' | 'error', message: string, fields: LogFields) => void;
}

/** Structured logger: one human line (`common`) or one JSON object (`json`) per entry. */
export class Logger {
  readonly format: LogFormat;
  readonly level: LogLevel;
  readonly #pretty: boolean;
  readonly #sink: LogSink;
  readonly #base: LogFields;
  readonly #onNotice: LoggerOptions['onNotice'];

  constructor({ format = 'common', level = 'info', pretty = false, sink = stdoutSink, base = {}, onNotice }: LoggerOptions = {}) {
    this.format = format;
    this.level = level;
    this.#pretty = pretty;
    this.#sink = sink;
    this.#base = base;
    this.#onNotice = onNotice;
  }

  child(base: LogFields): Logger {
    return new Logger({
      format: this.format,
      level: this.level,
      pretty: this.#pretty,
      sink: this.#sink,
      base: { ...this.#base, ...base },
      onNotice: this.#onNotice,
    });
  }

  /** Where the lines go (another logger may share it, keeping the order of their lines). */
  get sink(): LogSink {
    return this.#sink;
  }

  enabled(level: LogLevel): boolean {
    return RANK[level] <= RANK[this.level];
  }

  error(message: string, fields?: LogFields): void {
    this.log('error', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.log('warn', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.log('info', message, fields);
  }
  debug(message: string, fields?: LogFields): void {
    this.log('debug', message, fields);
  }

  log(level: LogLevel, message: string, fields?: LogFields): void {
    if (!this.enabled(level)) return;
    // The base and the call's fields as `{ ...base, ...fields }` would be, by assignment: a
    // spread (and taking `component` out with a rest pattern) made V8 build a new hidden class
    // for every line, which the callback worker paid once per delivery.
    const merged: LogFields = {};
    for (const key of Object.keys(this.#base)) merged[key] = this.#base[key];
    if (fields) for (const key of Object.keys(fields)) merged[key] = fields[key];
    const keys = Object.keys(merged);
    const timestamp = new Date().toISOString();
    if (this.format === 'json') {
      const entry: LogFields = { timestamp, level, type: 'gateway_daemon', message };
      for (const key of keys) entry[key] = redactedValue(key, merged[key]);
      this.#sink.write(JSON.stringify(entry, null, this.#pretty ? 2 : undefined));
    } else {
      const component = redactedValue('component', merged.component);
      let line = `${timestamp} ${level.toUpperCase().padEnd(5)}${component ? ` [${String(component)}]` : ''} ${message}`;
      for (const key of keys) if (key !== 'component') line += ` ${key}=${formatValue(redactedValue(key, merged[key]))}`;
      this.#sink.write(line);
    }
    // An error may be the last thing a process says: it does not wait in a batch.
    if (RANK[level] <= RANK.error) this.#sink.flush?.();
    if ((level === 'warn' || level === 'error' || level === 'fatal' || level === 'panic') && this.#onNotice) {
      this.#onNotice(level === 'warn' ? 'warn' : 'error', message, redact(merged));
    }
  }
}

const stdoutSink: LogSink = { write: (line) => process.stdout.write(`${line}\n`) };

export function redact(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) out[key] = redactedValue(key, value);
  return out;
}

/** A field's value as lines show it: `***` under a secret-looking key, an error's message, objects redacted inside. */
function redactedValue(key: string, value: unknown): unknown {
  if (SECRET_KEY.test(key)) return '***';
  if (value instanceof Error) return value.message;
  if (value && typeof value === 'object' && !Array.isArray(value)) return redact(value as LogFields);
  return value;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}
