import { createRequire } from 'node:module';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/** `protos/` at the repository root: three levels above daemon/src/cds and daemon/dist/cds. */
export const PROTOS_DIR = fileURLToPath(new URL('../../../protos/', import.meta.url));

/** protobufjs ships google/protobuf/descriptor.proto (needed by google/api/annotations.proto). */
export const PROTOBUFJS_DIR = dirname(createRequire(import.meta.url).resolve('protobufjs/package.json'));

export const CDS_PROTO = 'proxy/api/v2/cds.proto';
export const CLUSTER_TYPE_URL = 'type.googleapis.com/proxy.api.v2.Cluster';
export const UPSTREAM_TLS_TYPE_URL = 'type.googleapis.com/proxy.api.v2.auth.UpstreamTlsContext';
export const SERVICE_NAME = 'proxy.api.v2.ClusterDiscoveryService';

/** The message types the service uses, looked up once. */
export interface CdsTypes {
  readonly root: protobuf.Root;
  readonly Cluster: protobuf.Type;
  readonly DiscoveryRequest: protobuf.Type;
  readonly DiscoveryResponse: protobuf.Type;
  readonly DeltaDiscoveryRequest: protobuf.Type;
  readonly DeltaDiscoveryResponse: protobuf.Type;
  readonly UpstreamTlsContext: protobuf.Type;
  readonly service: protobuf.Service;
}

let cached: CdsTypes | null = null;

/** Loads protos/proxy/api/v2/cds.proto and its imports (field names kept snake_case). */
export function loadCdsTypes(protosDir: string = PROTOS_DIR): CdsTypes {
  if (cached && protosDir === PROTOS_DIR) return cached;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    if (isAbsolute(target)) return target;
    if (target === 'google/protobuf/descriptor.proto') return join(PROTOBUFJS_DIR, target);
    return join(protosDir, target);
  };
  root.loadSync(CDS_PROTO, { keepCase: true });
  root.resolveAll();
  const types: CdsTypes = {
    root,
    Cluster: root.lookupType('proxy.api.v2.Cluster'),
    DiscoveryRequest: root.lookupType('proxy.api.v2.DiscoveryRequest'),
    DiscoveryResponse: root.lookupType('proxy.api.v2.DiscoveryResponse'),
    DeltaDiscoveryRequest: root.lookupType('proxy.api.v2.DeltaDiscoveryRequest'),
    DeltaDiscoveryResponse: root.lookupType('proxy.api.v2.DeltaDiscoveryResponse'),
    UpstreamTlsContext: root.lookupType('proxy.api.v2.auth.UpstreamTlsContext'),
    service: root.lookupService(SERVICE_NAME),
  };
  if (protosDir === PROTOS_DIR) cached = types;
  return types;
}
