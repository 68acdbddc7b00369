import { resolve } from 'node:path';
import type { Area, DaemonContext } from '../core/area.js';
import type { Component } from '../core/component.js';
import { Logger } from '../core/logger.js';
import { plural, stillServingText } from '../display/counts.js';
import { ApiKeys } from './api-keys.js';
import { INFOSESSIONS_SERVICE, KEYS_SERVICE } from './control-router.js';
import { infosessionsControl, keysControl } from './control-service.js';
import { infosessionsEndpoint, isInfosessionsPath } from './endpoint.js';
import { InfosessionsSource, type ReloadResult } from './source.js';

export const DEFAULT_SESSIONS_CSV = 'config/data/infosessions.csv';
export const DEFAULT_BUILDINGS_CSV = 'config/data/buildings.csv';

/** How many rejected rows a reload names in its event; the rest are in infosessions.source. */
const NAMED_PROBLEMS = 3;

/** Paths from PORTICO_INFOSESSIONS_CSV / PORTICO_BUILDINGS_CSV, relative to the daemon's cwd. */
export function sourceFiles(env: NodeJS.ProcessEnv): { sessions: string; buildings: string } {
  return {
    sessions: resolve(env.PORTICO_INFOSESSIONS_CSV?.trim() || DEFAULT_SESSIONS_CSV),
    buildings: resolve(env.PORTICO_BUILDINGS_CSV?.trim() || DEFAULT_BUILDINGS_CSV),
  };
}

export function describeReload(result: ReloadResult, buildingsError: string | null): { level: 'info' | 'warn' | 'error'; message: string } {
  const building = buildingsError ? `; buildings table not reloaded: ${buildingsError}` : '';
  if (result.error) return { level: 'error', message: `infosessions: ${result.file}: ${result.error}; ${stillServingText(result.rows, 'session')}${building}` };
  const named = result.rejected.slice(0, NAMED_PROBLEMS).map((p) => `line ${p.line}: ${p.reason}`);
  const more = result.rejected.length > NAMED_PROBLEMS ? `; ${result.rejected.length - NAMED_PROBLEMS} more in infosessions.source` : '';
  const rejected = result.rejected.length > 0 ? `; ${plural(result.rejected.length, 'row')} skipped (${named.join('; ')}${more})` : '';
  return { level: result.rejected.length > 0 || buildingsError ? 'warn' : 'info', message: `infosessions: loaded ${plural(result.rows, 'session')} from ${result.file}${rejected}${building}` };
}

/** The campus infosessions listing: CSV source, public endpoint, API keys and their control API. */
export const infosessionsArea: Area = {
  name: 'infosessions',
  modes: ['all', 'gateway'],
  install(ctx: DaemonContext): void {
    // Its own logger without the event-bus hook: each reload is published once, as infosessions.reloaded.
    const logger = new Logger({ format: ctx.logger.format, level: ctx.logger.level, sink: ctx.logger.sink, base: { component: 'infosessions' } });
    const keys = new ApiKeys(() => ctx.store());
    const source: InfosessionsSource = new InfosessionsSource(sourceFiles(ctx.env), (result) => {
      const { level, message } = describeReload(result, source.status().buildings.error?.message ?? null);
      logger[level](message, { file: result.file, rows: result.rows, rejected: result.rejected.length });
      ctx.events.publish({ type: 'infosessions.reloaded', level, message });
    });
    const component: Component = {
      name: 'infosessions',
      start: () => source.start(),
      stop: () => source.stop(),
      describe: () => `${plural(source.snapshot.entries.length, 'session')} from ${source.files.sessions}`,
    };
    ctx.host.register(component);
    ctx.services.mount('infosessions', isInfosessionsPath, infosessionsEndpoint({ keys, snapshot: () => source.snapshot }));
    ctx.control.provide(INFOSESSIONS_SERVICE, infosessionsControl(source));
    ctx.control.provide(KEYS_SERVICE, keysControl(keys, (message) => ctx.events.publish({ type: 'infosessions.keys', message })));
  },
};
