import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJsonError, type ServiceHandler } from '../core/services-listener.js';
import type { ClusterCatalog } from './catalog.js';
import { fetchClusters } from './fetch.js';
import { CdsRequestError, type DiscoveryRequestMessage } from './messages.js';
import { fromProtoJson, ProtoJsonError, toProtoJson } from './proto-json.js';

export const DISCOVERY_CLUSTERS_PATH = '/v2/discovery:clusters';

/** A DiscoveryRequest is small; this bounds what a client can make the daemon buffer. */
const MAX_BODY_BYTES = 1024 * 1024;

export function isDiscoveryPath(pathname: string): boolean {
  return pathname === DISCOVERY_CLUSTERS_PATH;
}

/**
 * `POST /v2/discovery:clusters`, the HTTP form of FetchClusters (the google.api.http
 * annotation): the body is a DiscoveryRequest in proto3 JSON, the answer a DiscoveryResponse
 * in canonical proto3 JSON with proto field names; 304 when the client's version_info is
 * current; 400 with the reason for a bad body; 405 for other methods.
 */
export function discoveryHttpHandler(catalog: ClusterCatalog): ServiceHandler {
  return async function discoveryClustersHandler(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      sendJsonError(res, 405, 'method_not_allowed', `${req.method ?? 'this method'} is not allowed on ${DISCOVERY_CLUSTERS_PATH}; POST a DiscoveryRequest as JSON`);
      req.resume();
      return;
    }
    const body = await readBody(req);
    if (body === null) {
      sendJsonError(res, 413, 'body_too_large', `the request body exceeds ${MAX_BODY_BYTES} bytes; a DiscoveryRequest is a few hundred bytes`);
      return;
    }
    let request: DiscoveryRequestMessage;
    try {
      const text = body.toString('utf8').trim();
      if (text === '') throw new ProtoJsonError('', 'the body is empty; send a DiscoveryRequest as JSON, e.g. {"node":{"id":"proxy-1"}}');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        throw new ProtoJsonError('', `not valid JSON (${(error as Error).message})`);
      }
      request = fromProtoJson(catalog.types.DiscoveryRequest, json) as unknown as DiscoveryRequestMessage;
    } catch (error) {
      if (error instanceof ProtoJsonError) {
        sendJsonError(res, 400, 'bad_discovery_request', `bad DiscoveryRequest: ${error.message}`);
        return;
      }
      throw error;
    }
    let result;
    try {
      result = fetchClusters(catalog, request);
    } catch (error) {
      if (error instanceof CdsRequestError) {
        sendJsonError(res, 400, 'bad_discovery_request', `bad DiscoveryRequest: ${error.message}`);
        return;
      }
      throw error;
    }
    if (result.current) {
      res.writeHead(304, { ETag: `"${result.version}"` }).end();
      return;
    }
    const response = catalog.types.DiscoveryResponse.decode(result.bytes);
    const text = JSON.stringify(toProtoJson(catalog.types.DiscoveryResponse, response));
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ETag: `"${result.version}"`, 'Cache-Control': 'no-store' }).end(text);
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      req.resume();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
