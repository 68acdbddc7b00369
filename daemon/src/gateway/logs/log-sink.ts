/**
 * The gateway's log sink: every access, backend and daemon record passes through here and is
 * rendered as `common` (one human line) or `json` (one object per line, pretty on request),
 * filtered by `log_level`. Headers are re-filtered through the allow-list whoever wrote the
 * record, so a careless caller cannot log a secret header.
 */
import { backendLogRecord, type BackendLogInput } from '../backend/backend-log.js';
import type { GatewayLogRecord, GatewayLogSink } from '../contracts.js';
import type { LogLevel, Settings } from '../config/model.js';
import { GatewayError } from '../errors/error-types.js';
import { accessRecord, type AccessRecordInput } from './access-record.js';
import { accessLineOf, backendLineOf, formatCommonLine } from './common-line.js';
import { scrubRecordHeaders } from './header-allow-list.js';
import { batchedStdout } from '../../core/stdout-batch.js';

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
  writeAccess(entry: AccessRecordInput): void;
  writeBackend(entry: BackendLogInput): void;
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

/** Writes an access record through `sink`: by its parts when the sink takes them, else built. */
export function logAccess(sink: GatewayLogSink, entry: AccessRecordInput): void {
  if (sink.writeAccess) sink.writeAccess(entry);
  else sink.write(accessRecord(entry));
}

/** Writes a backend record through `sink`: by its parts when the sink takes them, else built. */
export function logBackend(sink: GatewayLogSink, entry: BackendLogInput): void {
  if (sink.writeBackend) sink.writeBackend(entry);
  else sink.write(backendLogRecord(entry));
}

/**
 * A custom_log_fields object that failed to evaluate (`of` names where, e.g. `error_handler`):
 * it is left out of its line and logged as an error record of its own with the request's uid.
 */
export function logCustomFieldsError(sink: GatewayLogSink, uid: string, error: GatewayError, of?: string): void {
  sink.write({ timestamp: new Date().toISOString(), level: 'error', type: 'gateway_daemon', uid, message: `custom_log_fields${of === undefined ? '' : ` of ${of}`}: ${error.detail}` });
}

const isEmpty = (custom: Readonly<Record<string, unknown>> | null): boolean => {
  for (const _ in custom) return false;
  return true;
};

/** The level of an access record (accessRecord's rule) and of a backend record (backendLogRecord's). */
const accessLevel = (entry: AccessRecordInput): LogLevel => entry.level ?? (entry.errorType ? 'error' : 'info');
const backendLevel = (entry: BackendLogInput): LogLevel => (entry.error === null ? 'info' : entry.error instanceof GatewayError ? 'error' : 'warn');

/**
 * By default lines go to stdout together once per turn of the event loop (one write for the
 * lines of many requests, flushed at exit too); `write` replaces that (tests collect lines).
 */
export function createGatewayLogSink({ format = 'common', level = 'info', pretty = false, write = batchedStdout }: GatewayLogWriterOptions = {}): ConfigurableLogSink {
  let current: LogSinkSettings = { format, level, pretty };
  const writeRecord = function writeGatewayLog(record: GatewayLogRecord): void {
    if (RANK[record.level] > RANK[current.level]) return;
    const clean = scrubRecordHeaders(record as unknown as Record<string, unknown>) as unknown as GatewayLogRecord;
    try {
      write(current.format === 'json' ? JSON.stringify(clean, null, current.pretty ? 2 : undefined) : formatCommonLine(clean));
    } catch (error) {
      // A record that cannot be rendered (a cycle in custom fields...) must not take the request down.
      write(JSON.stringify({ timestamp: record.timestamp, level: 'error', type: 'gateway_daemon', message: `log record not rendered: ${error instanceof Error ? error.message : String(error)}` }));
    }
  };
  return {
    get settings() {
      return current;
    },
    configure(next) {
      current = { ...next };
    },
    write: writeRecord,
    // Nothing is built for a record the level drops; a common line is formatted from the parts.
    writeAccess: function writeAccessLine(entry: AccessRecordInput) {
      if (RANK[accessLevel(entry)] > RANK[current.level]) return;
      if (current.format === 'common' && isEmpty(entry.custom)) write(accessLineOf(entry));
      else writeRecord(accessRecord(entry));
    },
    writeBackend: function writeBackendLine(entry: BackendLogInput) {
      if (RANK[backendLevel(entry)] > RANK[current.level]) return;
      if (current.format === 'common' && isEmpty(entry.custom)) write(backendLineOf(entry));
      else writeRecord(backendLogRecord(entry));
    },
  };
}
