/**
 * The gateway's log sink: every access, backend and daemon record passes through here and is
 * rendered as `common` (one human line) or `json` (one object per line, pretty on request),
 * filtered by `log_level`. Headers are re-filtered through the allow-list whoever wrote the
 * record, so a careless caller cannot log a secret header.
 */
import type { GatewayLogRecord, GatewayLogSink } from '../contracts.js';
import type { LogLevel, Settings } from '../config/model.js';
import { formatCommonLine } from './common-line.js';
import { scrubRecordHeaders } from './header-allow-list.js';

const RANK: Record<LogLevel, number> = { panic: 0, fatal: 1, error: 2, warn: 3, info: 4, debug: 5, trace: 6 };

export interface LogSinkSettings {
  readonly format: Settings['logFormat'];
  readonly level: LogLevel;
  readonly pretty: boolean;
}

export interface GatewayLogWriterOptions extends Partial<LogSinkSettings> {
  /** Receives one rendered entry (without the trailing newline); stdout by default. */
  readonly write?: (line: string) => void;
}

/** A sink whose format and level follow the applied configuration (`configure` on each apply). */
export interface ConfigurableLogSink extends GatewayLogSink {
  configure(settings: LogSinkSettings): void;
  readonly settings: LogSinkSettings;
}

export function isConfigurableLogSink(sink: GatewayLogSink): sink is ConfigurableLogSink {
  return typeof (sink as Partial<ConfigurableLogSink>).configure === 'function';
}

/** The sink settings of a gateway configuration. */
export function logSinkSettings(settings: Settings): LogSinkSettings {
  return { format: settings.logFormat, level: settings.logLevel, pretty: settings.logPretty };
}

export function createGatewayLogSink({ format = 'common', level = 'info', pretty = false, write = writeStdout }: GatewayLogWriterOptions = {}): ConfigurableLogSink {
  let current: LogSinkSettings = { format, level, pretty };
  return {
    get settings() {
      return current;
    },
    configure(next) {
      current = { ...next };
    },
    write: function writeGatewayLog(record: GatewayLogRecord) {
      if (RANK[record.level] > RANK[current.level]) return;
      const clean = scrubRecordHeaders(record as unknown as Record<string, unknown>) as unknown as GatewayLogRecord;
      try {
        write(current.format === 'json' ? JSON.stringify(clean, null, current.pretty ? 2 : undefined) : formatCommonLine(clean));
      } catch (error) {
        // A record that cannot be rendered (a cycle in custom fields...) must not take the request down.
        write(JSON.stringify({ timestamp: record.timestamp, level: 'error', type: 'gateway_daemon', message: `log record not rendered: ${error instanceof Error ? error.message : String(error)}` }));
      }
    },
  };
}

function writeStdout(line: string): void {
  process.stdout.write(`${line}\n`);
}
