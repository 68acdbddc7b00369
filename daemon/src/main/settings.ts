import { EnvironmentError } from '../core/errors.js';
import { readSettings, type DaemonSettings } from '../core/settings.js';
import { readGatewayFrontSettings, type GatewayFrontSettings } from '../gateway/http/front-settings.js';
import { readGatewayProcesses } from '../gateway/processes/processes-setting.js';

/** The daemon's settings and the areas' own variables that are read before anything starts. */
export interface PorticoSettings extends DaemonSettings {
  gatewayFront: GatewayFrontSettings;
  /** PORTICO_GATEWAY_PROCESSES: processes serving the gateway's ports (1: the daemon's own). */
  gatewayProcesses: number;
}

/**
 * Reads the daemon's and the gateway front's variables; throws one EnvironmentError naming
 * every bad variable of both, so an operator fixes them in one go.
 */
export function readPorticoSettings(env: NodeJS.ProcessEnv, overrides: { dataDir?: string | undefined } = {}): PorticoSettings {
  const problems: string[] = [];
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof EnvironmentError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  };
  const daemon = attempt(() => readSettings(env, overrides));
  const gatewayFront = attempt(() => readGatewayFrontSettings(env));
  const gatewayProcesses = attempt(() => readGatewayProcesses(env));
  if (!daemon || !gatewayFront || gatewayProcesses === undefined) throw new EnvironmentError(problems);
  return { ...daemon, gatewayFront, gatewayProcesses };
}
