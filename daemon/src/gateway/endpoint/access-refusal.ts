import type { AccessLogFields } from '../contracts.js';
import { asGatewayError, type GatewayError } from '../errors/error-types.js';

/** An access control's refusal as the access line and the denial count see it; returns it as a GatewayError. */
export function noteRefusal(thrown: unknown, log: AccessLogFields): GatewayError {
  const error = asGatewayError(thrown, 'access_control');
  log.errorType = error.kind;
  log.errorDetail = error.detail;
  log.denial = { type: error.kind, label: error.source };
  return error;
}
