import { cdsArea } from '../cds/area.js';
import { CDS_ROUTERS } from '../cds/control-router.js';
import { installArea, type DaemonContext } from '../core/area.js';
import { gatewayArea } from '../gateway/area.js';
import { GATEWAY_ROUTERS } from '../gateway/control/control-router.js';
import type { GatewayFrontSettings } from '../gateway/http/front-settings.js';
import { infosessionsArea } from '../infosessions/area.js';
import { INFOSESSIONS_ROUTERS } from '../infosessions/control-router.js';
import { INFOSESSIONS_MIGRATIONS } from '../infosessions/migrations.js';
import { INGEST_ROUTERS } from '../ingest/control-router.js';
import { INGEST_AREAS } from '../ingest/area.js';
import { INGEST_MIGRATIONS } from '../ingest/migrations.js';
import { CORE_MIGRATIONS } from '../store/schema.js';
import type { MigrationSet } from '../store/types.js';

/*
 * The composition root's list of areas: each area keeps its migrations, routers, services and
 * components in its own folder, and this file is the one place that names them all. Adding an
 * area is its folder plus a line in each of the three lists below.
 */

/** Every area's tables, applied in this order at start in every mode (all processes share one database). */
export const DAEMON_MIGRATIONS: readonly MigrationSet[] = [
  { area: 'core', migrations: CORE_MIGRATIONS },
  { area: 'infosessions', migrations: INFOSESSIONS_MIGRATIONS },
  { area: 'ingest', migrations: INGEST_MIGRATIONS },
];

/** Every area's control API routers, merged into the app router (main/app-router.ts). */
export const AREA_ROUTERS = {
  ...GATEWAY_ROUTERS,
  ...INFOSESSIONS_ROUTERS,
  ...INGEST_ROUTERS,
  ...CDS_ROUTERS,
};

export interface AreaWiring {
  /** PORTICO_GATEWAY_* limits and timeouts for the gateway's client connections. */
  gatewayFront: GatewayFrontSettings;
  /** PORTICO_GATEWAY_PROCESSES. */
  gatewayProcesses: number;
}

/**
 * Installs the areas the mode runs, in start order, and hands each what another offers:
 * cluster discovery follows the gateway's live configuration and health when the gateway runs
 * in this process, and loads the configuration files itself when it does not.
 */
export function installAreas(ctx: DaemonContext, wiring: AreaWiring): void {
  const gateway = installArea(gatewayArea({ front: wiring.gatewayFront, processes: wiring.gatewayProcesses }), ctx);
  installArea(infosessionsArea, ctx);
  for (const part of INGEST_AREAS) installArea(part, ctx);
  installArea(cdsArea({ gateway }), ctx);
}
