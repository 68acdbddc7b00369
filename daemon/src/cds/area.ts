import type { Area, DaemonContext } from '../core/area.js';
import type { GatewayState } from '../gateway/contracts.js';
import type { Component } from '../core/component.js';
import { formatAddress } from '../core/settings.js';
import { plural } from '../display/counts.js';
import { ClusterCatalog } from './catalog.js';
import { ClientRegistry } from './client-registry.js';
import { FileClusterSource, GatewayClusterSource, type ClusterSource } from './cluster-source.js';
import { CLUSTERS_SERVICE } from './control-router.js';
import { clustersControl } from './control-service.js';
import { CdsGrpcServer } from './grpc-server.js';
import { discoveryHttpHandler, isDiscoveryPath } from './http-form.js';
import { loadCdsTypes } from './proto-root.js';

/**
 * The cluster discovery service: every backend of the gateway config as a cluster, over gRPC
 * (PORTICO_CDS_ADDR) and its HTTP form on the internal services listener. With the gateway in
 * the process (`gateway`, handed over by the composition root) it follows the live config and
 * health; without it (`--mode cds`) it loads the files itself.
 */
export function cdsArea({ gateway }: { gateway: GatewayState | null }): Area {
  return {
  name: 'cds',
  modes: ['all', 'cds'],
  install(ctx: DaemonContext): void {
    const logger = ctx.logger.child({ component: 'cds' });
    const catalog = new ClusterCatalog(loadCdsTypes());
    const registry = new ClientRegistry();
    const server = new CdsGrpcServer(catalog, registry, logger);
    let source: ClusterSource | null = null;
    let offs: (() => void)[] = [];

    const component: Component = {
      name: 'cds',
      async start() {
        offs = [
          catalog.onChange((next, previous) => {
            const message = `cluster discovery: version ${next.version} (${plural(next.resources.length, 'cluster')}; was ${previous.version})`;
            logger.info(message, { version: next.version, clusters: next.resources.length });
            ctx.events.publish({ type: 'cds.snapshot', message });
          }),
          registry.onChange((client, event) => {
            if (event === 'updated' && client.lastNack && client.lastNack.at === lastNackAt.get(client.streamId)) return;
            if (event === 'updated' && client.lastNack) {
              lastNackAt.set(client.streamId, client.lastNack.at);
              const message = `cluster discovery: node ${client.nodeId || '(no id)'} rejected version ${client.lastNack.version}: ${client.lastNack.message}`;
              logger.warn(message, { stream: client.streamId });
              ctx.events.publish({ type: 'cds.nack', level: 'warn', message });
            }
            if (event === 'disconnected') lastNackAt.delete(client.streamId);
          }),
        ];
        source = gateway
          ? new GatewayClusterSource(gateway, catalog)
          : new FileClusterSource(ctx.configPaths, ctx.env, catalog, {
              loaded: (_config, changed) => {
                if (!changed) logger.info('cluster discovery: configuration reloaded, clusters unchanged');
              },
              failed: (message) => {
                const text = `cluster discovery: configuration not loaded, still serving version ${catalog.current.version}: ${message}`;
                logger.error(text);
                ctx.events.publish({ type: 'cds.config', level: 'error', message: text });
              },
            });
        await source.start();
        await server.start(ctx.settings.cds);
      },
      async stop() {
        await server.stop();
        await source?.stop();
        for (const off of offs) off();
        offs = [];
      },
      describe: () => `grpc ${address() ?? '-'}, ${plural(catalog.current.resources.length, 'cluster')} from ${source?.describe() ?? '-'}`,
    };
    const lastNackAt = new Map<string, string>();
    const address = (): string | null => (server.port === null ? null : formatAddress({ host: ctx.settings.cds.host, port: server.port }));

    ctx.host.register(component);
    ctx.services.mount('cds', isDiscoveryPath, discoveryHttpHandler(catalog));
    ctx.control.provide(CLUSTERS_SERVICE, clustersControl({ catalog, registry, source: () => source?.describe() ?? 'not started', address }));
  },
  };
}
