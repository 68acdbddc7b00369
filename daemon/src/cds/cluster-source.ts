import { configWatchSet } from '../core/config-sources.js';
import { FileWatcher } from '../core/file-watcher.js';
import { formatDiagnostic } from '../hcl/index.js';
import type { GatewayState } from '../gateway/contracts.js';
import type { GatewayConfig } from '../gateway/config/model.js';
import { loadGatewayConfig } from '../gateway/config/load.js';
import { ReusableBackends } from '../gateway/config/backend-reuse.js';
import type { ClusterCatalog } from './catalog.js';

/** Feeds the catalog from somewhere; started by the CDS component. */
export interface ClusterSource {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Where the clusters come from, for status and the consoles. */
  describe(): string;
}

/**
 * In a process that runs the gateway: the active config and the live health of its backends.
 * A reload or a health state change rebuilds the snapshot (published only when it changed).
 */
export class GatewayClusterSource implements ClusterSource {
  #unsubscribe: (() => void)[] = [];

  constructor(
    private readonly gateway: GatewayState,
    private readonly catalog: ClusterCatalog,
  ) {}

  async start(): Promise<void> {
    const rebuild = (): void => {
      this.catalog.updateFrom(this.gateway.config, this.gateway.health.snapshot());
    };
    this.#unsubscribe = [this.gateway.onConfig(rebuild), this.gateway.health.onChange(rebuild)];
    rebuild();
  }

  async stop(): Promise<void> {
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe = [];
  }

  describe(): string {
    return 'gateway config and live health';
  }
}

export interface FileSourceEvents {
  loaded(config: GatewayConfig, changed: boolean): void;
  failed(message: string): void;
}

/**
 * `--mode cds`: no gateway in the process, so the gateway config is loaded here (same loader)
 * and watched with the shared watcher (a `*.hcl` file added to a -d directory counts); no
 * health checks run, so every endpoint is UNKNOWN. A bad file keeps the previous clusters.
 */
export class FileClusterSource implements ClusterSource {
  readonly #watcher = new FileWatcher(() => void this.load());
  #loading: Promise<void> = Promise.resolve();
  /** The last load's unchanged backends, taken as they are by the next. */
  #reusable = ReusableBackends.EMPTY;

  /** `paths`: configuration files, and directories standing for their `*.hcl` files, in load order. */
  constructor(
    private readonly paths: readonly string[],
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly catalog: ClusterCatalog,
    private readonly events: FileSourceEvents,
  ) {}

  async start(): Promise<void> {
    await this.load();
    await this.#watcher.update(await configWatchSet(this.paths));
  }

  /** Loads the files now; one load at a time. */
  load(): Promise<void> {
    this.#loading = this.#loading.then(async () => {
      try {
        const result = await loadGatewayConfig(this.paths, this.env, { reuse: this.#reusable });
        this.#reusable = result.reusable;
        if (!result.config) {
          this.events.failed(result.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic).join('; '));
          return;
        }
        const changed = this.catalog.updateFrom(result.config, null);
        this.events.loaded(result.config, changed);
      } catch (error) {
        // A load that throws (a bug, a validator's crash) keeps the previous clusters like a bad
        // file does; the next save loads again.
        this.events.failed(`the configuration could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
    return this.#loading;
  }

  async stop(): Promise<void> {
    await this.#watcher.close();
    await this.#loading;
  }

  describe(): string {
    return `config files ${this.#watcher.watching.join(', ') || this.paths.join(', ')} (no health checks in this mode)`;
  }
}
