import type { DaemonMode } from '../control/client-types.js';
import type { EventBus } from '../control/event-bus.js';
import type { GatewayState } from '../gateway/contracts.js';
import type { ControlServices } from '../control/trpc.js';
import type { Store } from '../store/types.js';
import type { ComponentHost } from './component.js';
import type { Logger } from './logger.js';
import type { ServicesListener } from './services-listener.js';
import type { DaemonSettings } from './settings.js';

/** What an area of the daemon (gateway, cds, infosessions, ingest, ...) gets to plug itself in. */
export interface DaemonContext {
  mode: DaemonMode;
  settings: DaemonSettings;
  env: NodeJS.ProcessEnv;
  /** Configuration files in load order. */
  configFiles: string[];
  /** The configuration sources as given (-f files, then -d directories), for watchers that must see new files. */
  configPaths: string[];
  logger: Logger;
  events: EventBus;
  /** Register components here; they start after the store, in registration order. */
  host: ComponentHost;
  /** The open store; call only from a component's start() or later. */
  store(): Store;
  services: ServicesListener;
  /** Attach the area's control service here (e.g. `control.infosessions = ...`). */
  control: ControlServices;
  /**
   * The active gateway configuration and backend health, set by the gateway area's install
   * (null in modes without the gateway); readers such as CDS use it from start() on.
   */
  gateway: GatewayState | null;
}

/**
 * An area installs itself when the mode runs it. Install registers components, mounts
 * service routes and attaches control services; it must not do I/O (start() does that).
 */
export interface Area {
  name: string;
  /** The modes that run this area. */
  modes: readonly DaemonMode[];
  install(ctx: DaemonContext): void;
}
