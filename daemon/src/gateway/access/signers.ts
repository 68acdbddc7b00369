import type { GatewayConfig } from '../config/model.js';
import { createSigner, type JwtSigner } from './jwt-sign.js';

/** Signers by configuration: a configuration's keys are parsed once, on its first jwt_sign call. */
const cache = new WeakMap<GatewayConfig, Map<string, JwtSigner>>();

export function signerFor(config: GatewayConfig, label: string): JwtSigner | null {
  const profile = config.signingProfiles[label];
  if (!profile) return null;
  let signers = cache.get(config);
  if (!signers) cache.set(config, (signers = new Map()));
  let signer = signers.get(label);
  if (!signer) signers.set(label, (signer = createSigner(profile)));
  return signer;
}
