import protobuf from 'protobufjs';
import { CLUSTER_TYPE_URL } from './proto-root.js';
import type { SnapshotResource } from './snapshot.js';

/**
 * Responses written straight from the snapshot's pre-encoded Any values, so ten thousand
 * clusters are encoded once per snapshot and not once per stream. Field numbers are those of
 * protos/proxy/api/v2/discovery.proto (Envoy's); the wire-compatibility test decodes these
 * with an independent definition.
 */

export const CONTROL_PLANE_ID = 'portico';

const LEN = 2;
const tag = (field: number): number => (field << 3) | LEN;

/** DiscoveryResponse without its nonce: version_info, resources, type_url, control_plane. */
export function encodeSotwBody(version: string, resources: readonly SnapshotResource[]): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(tag(1)).string(version);
  for (const r of resources) w.uint32(tag(2)).bytes(r.any);
  w.uint32(tag(4)).string(CLUSTER_TYPE_URL);
  w.uint32(tag(6)).fork().uint32(tag(1)).string(CONTROL_PLANE_ID).ldelim();
  return w.finish();
}

/** Appends `nonce` (field 5 of both DiscoveryResponse and DeltaDiscoveryResponse): fields of one message may come in any order on the wire. */
export function withNonce(body: Uint8Array, nonce: string): Buffer {
  const tail = protobuf.Writer.create().uint32(tag(5)).string(nonce).finish();
  return Buffer.concat([body, tail]);
}

/** DeltaDiscoveryResponse without its nonce: system_version_info, resources, type_url, removed_resources. */
export function encodeDeltaBody(systemVersion: string, resources: readonly SnapshotResource[], removed: readonly string[]): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(tag(1)).string(systemVersion);
  for (const r of resources) {
    w.uint32(tag(2)).fork();
    w.uint32(tag(1)).string(r.version);
    w.uint32(tag(2)).bytes(r.any);
    w.uint32(tag(3)).string(r.name);
    w.ldelim();
  }
  w.uint32(tag(4)).string(CLUSTER_TYPE_URL);
  for (const name of removed) w.uint32(tag(6)).string(name);
  return w.finish();
}

/** A whole DeltaDiscoveryResponse; the nonce (field 5, as in DiscoveryResponse) goes last. */
export function encodeDeltaResponse(systemVersion: string, resources: readonly SnapshotResource[], removed: readonly string[], nonce: string): Buffer {
  return withNonce(encodeDeltaBody(systemVersion, resources, removed), nonce);
}
