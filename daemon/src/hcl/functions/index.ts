import { collectionFunctions } from './collections.js';
import type { FunctionTable } from './define.js';
import { encodingFunctions } from './encoding.js';
import { stringFunctions } from './strings.js';

/**
 * Every function of the spec's table that needs no runtime context. `jwt_sign`,
 * `oauth2_authorization_url`, `saml_sso_url` and `oauth2_verifier` depend on the running
 * gateway and are passed to `evaluate` by it.
 */
export const standardFunctions: FunctionTable = Object.freeze(
  Object.assign(Object.create(null) as FunctionTable, collectionFunctions, encodingFunctions, stringFunctions),
);
