export { createBackendSet, type BackendSetOptions } from './backend-set.js';
export { SharedTransports } from './shared-transports.js';
export { createTransport, proxyFromEnv, type BackendTransport, type ProcessEnv } from './transport.js';
export { formatMs, shortMessage } from './backend-errors.js';
