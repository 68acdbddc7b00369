/** Endpoint execution: proxies, requests, response, modifiers and error handlers of a routed request. */
export { createEndpointHandler, type EndpointHandlerOptions } from './endpoint-handler.js';
