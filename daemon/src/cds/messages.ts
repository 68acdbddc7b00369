import { randomBytes } from 'node:crypto';
import { CLUSTER_TYPE_URL } from './proto-root.js';
import { PorticoError } from '../core/errors.js';

// Decoded requests as protobufjs gives them (keepCase; unset fields read as their defaults).

export interface NodeMessage {
  id: string;
  cluster: string;
}

export interface StatusMessage {
  code: number;
  message: string;
}

export interface DiscoveryRequestMessage {
  version_info: string;
  node: NodeMessage | null;
  resource_names: string[];
  type_url: string;
  response_nonce: string;
  error_detail: StatusMessage | null;
}

export interface DeltaDiscoveryRequestMessage {
  node: NodeMessage | null;
  type_url: string;
  resource_names_subscribe: string[];
  resource_names_unsubscribe: string[];
  initial_resource_versions: Record<string, string>;
  response_nonce: string;
  error_detail: StatusMessage | null;
}

/** A request the protocol cannot serve; the stream ends with INVALID_ARGUMENT and this text. */
export class CdsRequestError extends PorticoError {
  override readonly name = 'CdsRequestError';
  constructor(message: string) {
    super('cds_bad_request', message, { category: 'invalid' });
  }
}

/** The per-type service serves clusters only; an empty type_url means "this service's type". */
export function checkTypeUrl(typeUrl: string): void {
  if (typeUrl !== '' && typeUrl !== CLUSTER_TYPE_URL) {
    throw new CdsRequestError(`type_url ${JSON.stringify(typeUrl)} is not served here; the cluster discovery service serves ${CLUSTER_TYPE_URL} (or leave type_url empty)`);
  }
}

const NONCE_PREFIX = randomBytes(4).toString('hex');
let nonceSeq = 0;

/** Unique per response across the process, and across restarts thanks to the random prefix. */
export function nextNonce(): string {
  nonceSeq += 1;
  return `${NONCE_PREFIX}-${nonceSeq.toString(36)}`;
}

/** What a stream keeps of the strings a client sends, so one client cannot make every console read megabytes. */
export const MAX_NODE_CHARS = 256;
export const MAX_NACK_MESSAGE_CHARS = 4096;

export function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
