/**
 * Transports kept across reloads. A reload builds a new backend set; a backend the load took
 * unchanged from the previous one (the same frozen object, or its copy at a moved block: see
 * config/backend-reuse.ts) gets
 * the transport the serving set already has, with its open keep-alive connections, instead of
 * a new undici Agent and connector (a 10,000-backend reload spent about 150 ms building them,
 * and every backend's connections were opened again after each save).
 *
 * A transport is shared only when nothing but the backend object shapes it: no CA file (a
 * file's content may change under the same path), the same `no_proxy_from_env` setting, and
 * the same process environment. Each set holds a reference; the underlying transport is closed
 * (or destroyed) when the last set holding it lets it go.
 */
import type { BackendConfig, Settings } from '../config/model.js';
import { createTransport, type BackendTransport, type CaCache, type ProcessEnv } from './transport.js';
import { builtBackend } from '../config/backend-reuse.js';

interface Shared {
  readonly transport: BackendTransport;
  readonly noProxyFromEnv: boolean;
  readonly env: ProcessEnv;
  refs: number;
}

export class SharedTransports {
  readonly #byBackend = new Map<BackendConfig, Shared>();

  /** How many transports are held by at least one set. */
  get size(): number {
    return this.#byBackend.size;
  }

  /** A transport for `backend`: the one a set already holds when it can be shared, else a new one. Release it with its close or destroy. */
  acquire(backend: BackendConfig, settings: Settings, env: ProcessEnv, caCache: CaCache): BackendTransport {
    if (!shareable(backend, settings)) return createTransport(backend, settings, env, caCache);
    // A backend taken at a moved block is a copy (its range moved), which no transport reads: the original's is shared.
    backend = builtBackend(backend);
    let shared = this.#byBackend.get(backend);
    if (shared !== undefined && (shared.noProxyFromEnv !== settings.noProxyFromEnv || shared.env !== env)) return createTransport(backend, settings, env, caCache);
    if (shared === undefined) {
      shared = { transport: createTransport(backend, settings, env, caCache), noProxyFromEnv: settings.noProxyFromEnv, env, refs: 0 };
      this.#byBackend.set(backend, shared);
    }
    shared.refs += 1;
    return this.#handle(backend, shared);
  }

  #handle(backend: BackendConfig, shared: Shared): BackendTransport {
    let released = false;
    const release = (end: 'close' | 'destroy'): Promise<void> => {
      if (released) return Promise.resolve();
      released = true;
      shared.refs -= 1;
      if (shared.refs > 0) return Promise.resolve();
      if (this.#byBackend.get(backend) === shared) this.#byBackend.delete(backend);
      return shared.transport[end]();
    };
    const { dispatcher, servername, route } = shared.transport;
    return { dispatcher, servername, route, close: () => release('close'), destroy: () => release('destroy') };
  }
}

function shareable(backend: BackendConfig, settings: Settings): boolean {
  return Object.isFrozen(backend) && backend.caFile === null && settings.caFile === null;
}
