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

  log(level: LogLevel, message: string, fields: LogFields = {}): void {
    if (!this.enabled(level)) return;
    const all = redact({ ...this.#base, ...fields });
    const timestamp = new Date().toISOString();
    if (this.format === 'json') {
      const entry = { timestamp, level, type: 'gateway_daemon', message, ...all };
      this.#sink.write(JSON.stringify(entry, null, this.#pretty ? 2 : undefined));
    } else {
      const { component, ...rest } = all;
      const tag = component ? ` [${String(component)}]` : '';
      const extra = Object.entries(rest)
        .map(([k, v]) => `${k}=${formatValue(v)}`)
        .join(' ');
      this.#sink.write(`${timestamp} ${level.toUpperCase().padEnd(5)}${tag} ${message}${extra ? ` ${extra}` : ''}`);
    }
    // An error may be the last thing a process says: it does not wait in a batch.
    if (RANK[level] <= RANK.error) this.#sink.flush?.();
    if ((level === 'warn' || level === 'error' || level === 'fatal' || level === 'panic') && this.#onNotice) {
      this.#onNotice(level === 'warn' ? 'warn' : 'error', message, all);
    }
  }
}

const stdoutSink: LogSink = { write: (line) => process.stdout.write(`${line}\n`) };

export function redact(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SECRET_KEY.test(key)) out[key] = '***';
    else if (value instanceof Error) out[key] = value.message;
    else if (value && typeof value === 'object' && !Array.isArray(value)) out[key] = redact(value as LogFields);
    else out[key] = value;
  }
  return out;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}
