// Benchmark clients (child of run.mjs): STREAMS streams of one kind over 10 channels; each
// response is scanned for its version and nonce only (the clusters are not decoded) and ACKed.
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { performance } from 'node:perf_hooks';

const now = () => performance.timeOrigin + performance.now();
const CHANNELS = 10;
const identity = (b) => b;
const methods = {
  sotw: { path: '/proxy.api.v2.ClusterDiscoveryService/StreamClusters', versionField: 1 },
  delta: { path: '/proxy.api.v2.ClusterDiscoveryService/DeltaClusters', versionField: 1 },
};

/** Fields 1 (version_info / system_version_info) and 5 (nonce) of a response, skipping the rest. */
function scan(buffer) {
  const reader = protobuf.Reader.create(buffer);
  let version = '';
  let nonce = '';
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    if (field === 1) version = reader.string();
    else if (field === 5) nonce = reader.string();
    else reader.skipType(tag & 7);
  }
  return { version, nonce };
}

const sotwRequest = (fields) => {
  const w = protobuf.Writer.create();
  if (fields.version) w.uint32((1 << 3) | 2).string(fields.version);
  if (fields.node) w.uint32((2 << 3) | 2).fork().uint32((1 << 3) | 2).string(fields.node).ldelim();
  if (fields.nonce) w.uint32((5 << 3) | 2).string(fields.nonce);
  return Buffer.from(w.finish());
};
const deltaRequest = (fields) => {
  const w = protobuf.Writer.create();
  if (fields.node) w.uint32((1 << 3) | 2).fork().uint32((1 << 3) | 2).string(fields.node).ldelim();
  if (fields.nonce) w.uint32((6 << 3) | 2).string(fields.nonce);
  return Buffer.from(w.finish());
};

let streams = [];
let clients = [];
let waiter = null;

process.on('message', (message) => {
  if (message.type === 'open') open(message);
  else if (message.type === 'await') waiter = { notVersion: message.notVersion, seen: 0, bytes: 0, lastAt: 0 };
  else if (message.type === 'close') {
    for (const s of streams) s.cancel();
    for (const c of clients) c.close();
    process.send({ type: 'closed' });
  }
});

function open({ kind, streams: count, address }) {
  const encode = kind === 'sotw' ? sotwRequest : deltaRequest;
  let initialBytes = 0;
  let initialSeen = 0;
  clients = Array.from({ length: CHANNELS }, (_, i) => new grpc.Client(address, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': -1, 'bench.channel': i }));
  for (let i = 0; i < count; i += 1) {
    const client = clients[i % CHANNELS];
    const call = client.makeBidiStreamRequest(methods[kind].path, identity, identity);
    let gotInitial = false;
    call.on('data', (buffer) => {
      const { version, nonce } = scan(buffer);
      call.write(kind === 'sotw' ? encode({ version, nonce }) : encode({ nonce }));
      if (!gotInitial) {
        gotInitial = true;
        initialBytes += buffer.length;
        initialSeen += 1;
        if (initialSeen === count) process.send({ type: 'ready', bytes: initialBytes });
        return;
      }
      if (waiter && version !== waiter.notVersion) {
        waiter.seen += 1;
        waiter.bytes += buffer.length;
        waiter.lastAt = now();
        if (waiter.seen === count) {
          process.send({ type: 'done', lastAt: waiter.lastAt, bytes: waiter.bytes });
          waiter = null;
        }
      }
    });
    call.on('error', () => {});
    call.write(encode({ node: `bench-${kind}-${i}` }));
    streams.push(call);
  }
}
