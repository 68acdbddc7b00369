import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../core/logger.js';
import { formatAddress, type ListenAddress } from '../core/settings.js';
import type { ClusterCatalog } from './catalog.js';
import type { ClientRegistry } from './client-registry.js';
import { DeltaStream } from './delta-stream.js';
import { fetchClusters } from './fetch.js';
import { CdsRequestError, type DeltaDiscoveryRequestMessage, type DiscoveryRequestMessage } from './messages.js';
import { SERVICE_NAME } from './proto-root.js';
import { SotwStream } from './sotw-stream.js';

type Stream = SotwStream | DeltaStream;

/**
 * Bytes handed to grpc-js but not yet flushed, across all streams, beyond which responses
 * wait: a full SotW response of 10,000 clusters is ~3 MB, so pushing it to 1,000 streams at once
 * would queue 3 GB. Streams waiting their turn get the then-current snapshot (newer wins).
 */
const PUSH_BUDGET_BYTES = 64 * 1024 * 1024;

/**
 * The ClusterDiscoveryService over grpc-js. Requests are decoded with our protos; responses
 * are written as bytes already encoded from the snapshot (see wire.ts), so the service
 * definition's response serializer is the identity.
 */
export class CdsGrpcServer {
  #server: grpc.Server | null = null;
  #port: number | null = null;
  /** Open streams and how to end each (on stop). */
  readonly #streams = new Map<Stream, () => void>();
  #offSnapshot: (() => void) | null = null;
  /** Streams owed the current snapshot, served as the in-flight budget allows. */
  readonly #owed = new Set<Stream>();
  #inFlight = 0;

  constructor(
    private readonly catalog: ClusterCatalog,
    private readonly registry: ClientRegistry,
    private readonly logger: Logger,
  ) {}

  /** Listening port (after start). */
  get port(): number | null {
    return this.#port;
  }

  async start(address: ListenAddress): Promise<void> {
    // Large snapshots (thousands of clusters) exceed grpc's 4 MiB default in both directions.
    const server = new grpc.Server({ 'grpc.max_send_message_length': -1, 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
    server.addService(this.#definition(), {
      StreamClusters: (call: grpc.ServerDuplexStream<DiscoveryRequestMessage, Buffer>) => this.#stream(call, 'sotw'),
      DeltaClusters: (call: grpc.ServerDuplexStream<DeltaDiscoveryRequestMessage, Buffer>) => this.#stream(call, 'delta'),
      FetchClusters: (call: grpc.ServerUnaryCall<DiscoveryRequestMessage, Buffer>, callback: grpc.sendUnaryData<Buffer>) => this.#fetch(call, callback),
    });
    const target = formatAddress(address);
    this.#port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (error, port) => {
        if (error) reject(new Error(`cluster discovery: cannot listen on ${target} (${error.message}); set PORTICO_CDS_ADDR to a free host:port`, { cause: error }));
        else resolve(port);
      });
    });
    this.#server = server;
    this.#offSnapshot = this.catalog.onChange(() => {
      for (const stream of this.#streams.keys()) this.#owed.add(stream);
      this.#pump();
    });
  }

  /** Ends every stream, then stops accepting (open streams are cancelled, not waited for). */
  async stop(): Promise<void> {
    this.#offSnapshot?.();
    this.#offSnapshot = null;
    const server = this.#server;
    this.#server = null;
    if (!server) return;
    for (const end of [...this.#streams.values()]) end();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, 1000);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.#streams.clear();
  }

  /** Bytes written to streams and not yet flushed (for the benchmark and status). */
  get inFlightBytes(): number {
    return this.#inFlight;
  }

  #pump(): void {
    for (const stream of this.#owed) {
      if (this.#inFlight >= PUSH_BUDGET_BYTES) return;
      this.#owed.delete(stream);
      stream.onSnapshot(this.catalog.current);
    }
  }

  #stream(call: grpc.ServerDuplexStream<DiscoveryRequestMessage, Buffer> | grpc.ServerDuplexStream<DeltaDiscoveryRequestMessage, Buffer>, kind: 'sotw' | 'delta'): void {
    const record = this.registry.open(kind, call.getPeer());
    let closed = false;
    let unflushed = 0; // this stream's share of the budget, given back on close if grpc never calls back
    const sink = (bytes: Buffer): boolean => {
      this.#inFlight += bytes.length;
      unflushed += bytes.length;
      return call.write(bytes, () => {
        if (closed) return;
        this.#inFlight -= bytes.length;
        unflushed -= bytes.length;
        if (this.#owed.size > 0) this.#pump();
      });
    };
    const gate = (): boolean => {
      if (this.#inFlight < PUSH_BUDGET_BYTES) return true;
      this.#owed.add(stream);
      return false;
    };
    const stream: Stream = kind === 'sotw' ? new SotwStream(this.catalog, this.registry, record, sink, gate) : new DeltaStream(this.catalog, this.registry, record, sink, gate);
    const close = (): void => {
      if (closed) return;
      closed = true;
      this.#streams.delete(stream);
      this.#owed.delete(stream);
      this.#inFlight -= unflushed;
      unflushed = 0;
      this.registry.close(record);
      if (this.#owed.size > 0) this.#pump();
    };
    this.#streams.set(stream, () => {
      close();
      call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'the cluster discovery service is shutting down; reconnect' });
    });
    call.on('data', (request: DiscoveryRequestMessage & DeltaDiscoveryRequestMessage) => {
      if (closed) return;
      try {
        stream.handle(request);
      } catch (error) {
        close();
        const details = error instanceof CdsRequestError ? error.message : 'internal error; see the daemon log';
        if (!(error instanceof CdsRequestError)) this.logger.error('cluster discovery stream failed', { stream: record.streamId, error });
        call.emit('error', { code: error instanceof CdsRequestError ? grpc.status.INVALID_ARGUMENT : grpc.status.INTERNAL, details });
      }
    });
    call.on('drain', () => stream.drained());
    call.on('end', () => {
      close();
      call.end();
    });
    call.on('cancelled', close);
    call.on('error', close);
    call.on('close', close);
  }

  #fetch(call: grpc.ServerUnaryCall<DiscoveryRequestMessage, Buffer>, callback: grpc.sendUnaryData<Buffer>): void {
    try {
      callback(null, fetchClusters(this.catalog, call.request).bytes);
    } catch (error) {
      if (error instanceof CdsRequestError) callback({ code: grpc.status.INVALID_ARGUMENT, details: error.message });
      else {
        this.logger.error('cluster discovery fetch failed', { error });
        callback({ code: grpc.status.INTERNAL, details: 'internal error; see the daemon log' });
      }
    }
  }

  #definition(): grpc.ServiceDefinition {
    const { DiscoveryRequest, DeltaDiscoveryRequest } = this.catalog.types;
    const identity = (value: Buffer): Buffer => value;
    const method = (name: string, requestStream: boolean, responseStream: boolean, decode: (bytes: Buffer) => unknown) => ({
      path: `/${SERVICE_NAME}/${name}`,
      requestStream,
      responseStream,
      requestSerialize: identity,
      requestDeserialize: decode,
      responseSerialize: identity,
      responseDeserialize: identity,
      originalName: name,
    });
    return {
      StreamClusters: method('StreamClusters', true, true, (b) => DiscoveryRequest.decode(b)),
      DeltaClusters: method('DeltaClusters', true, true, (b) => DeltaDiscoveryRequest.decode(b)),
      FetchClusters: method('FetchClusters', false, false, (b) => DiscoveryRequest.decode(b)),
    } as grpc.ServiceDefinition;
  }
}
