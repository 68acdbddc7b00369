import type { DaemonMode } from '../control/client-types.js';
import type { EventBus } from '../control/event-bus.js';
import type { ControlServices } from '../control/trpc.js';
import type { Store } from '../store/types.js';
import type { ComponentHost } from './component.js';
import type { Logger } from './logger.js';
import type { ServicesListener } from './services-listener.js';
import type { DaemonSettings } from './settings.js';

/** What an area of the daemon gets to plug itself in (the areas are listed in main/areas.ts). */
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
  /** Provide the area's control services here (`control.provide(KEY, service)`). */
  control: ControlServices;
}

/**
 * An area (or one part of it, such as a worker) installs itself when the mode runs it. Install
 * registers components, mounts service routes and provides control services; it must not do
 * I/O (start() does that). What it returns is what it offers other areas; the composition root
 * (main/areas.ts) hands it on explicitly.
 */
export interface Area<Offers = void> {
  name: string;
  /** The modes that run this area. */
  modes: readonly DaemonMode[];
  install(ctx: DaemonContext): Offers;
}

/** Installs the area when the mode runs it; null when it does not. */
export function installArea<Offers>(area: Area<Offers>, ctx: DaemonContext): Offers | null {
  return area.modes.includes(ctx.mode) ? area.install(ctx) : null;
}
