/*
 * PORTICO_GATEWAY_PROCESSES: how many processes serve the gateway's ports. 1 (the default) serves
 * them in the daemon's own process; above 1 the daemon forks that many serving processes
 * (serving-pool.ts); `auto` is one per core.
 */
import { availableParallelism } from 'node:os';
import { EnvironmentError } from '../../core/errors.js';

export const GATEWAY_PROCESSES_ENV = 'PORTICO_GATEWAY_PROCESSES';
/** More would only share the same cores; a typo like 400 should not fork 400 processes. */
const MAX_PROCESSES = 64;

/** The number of gateway serving processes; throws an EnvironmentError naming the variable when it is bad. */
export function readGatewayProcesses(env: NodeJS.ProcessEnv, cores: () => number = availableParallelism): number {
  const raw = env[GATEWAY_PROCESSES_ENV]?.trim() ?? '';
  if (raw === '') return 1;
  if (raw === 'auto') return Math.min(Math.max(1, cores()), MAX_PROCESSES);
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 1 && n <= MAX_PROCESSES) return n;
  throw new EnvironmentError([`${GATEWAY_PROCESSES_ENV}: must be an integer from 1 to ${MAX_PROCESSES} or 'auto' (one per core), got '${raw}'`]);
}
