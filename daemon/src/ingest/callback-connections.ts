import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { guardedLookup } from './address-guard.js';

export interface CallbackAgentOptions {
  timeoutMs: number;
  allowHosts: ReadonlySet<string>;
  /** Extra CA certificates (PEM) trusted besides the system roots (SERVICE_CALLBACK_CA_FILE). */
  extraCa?: string | undefined;
  /** Keep-alive connections per receiver origin (the worker's batch): more requests wait for one. */
  connectionsPerOrigin?: number | undefined;
}

/**
 * The connection pool of a callback worker, kept for its life: one keep-alive pool per receiver
 * origin, connecting through the address guard, resuming TLS sessions.
 */
export function callbackAgent({ timeoutMs, allowHosts, extraCa, connectionsPerOrigin }: CallbackAgentOptions): Agent {
  // Built once: given `ca`, every new connection would parse the ~150 system roots again.
  const secureContext = extraCa ? createSecureContext({ ca: [...rootCertificates, extraCa] }) : undefined;
  return new Agent({
    connect: sessionKeepingConnector({ timeout: timeoutMs, lookup: guardedLookup(allowHosts), ...(secureContext ? { secureContext } : {}) }),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // Without a bound, a request sent just before a response frees its socket opens another
    // connection (a TLS handshake); with it, the request waits for the socket.
    ...(connectionsPerOrigin ? { connections: connectionsPerOrigin } : {}),
  });
}

/** Receiver origins whose latest TLS session is kept (a new connection to them resumes it). */
const KEPT_SESSIONS = 256;

/**
 * undici's connector with TLS sessions that outlive the next garbage collection: it caches the
 * session a server sends only through a WeakRef, so a new connection (the receiver closed an
 * idle one) mostly did a full handshake. Holding the session here keeps that reference alive.
 */
function sessionKeepingConnector(options: buildConnector.BuildOptions): buildConnector.connector {
  const connect = buildConnector(options);
  const sessions = new Map<string, Buffer>();
  return function callbackConnect(target, callback) {
    const origin = `${target.hostname}:${(target as { port?: string | number }).port ?? ''}`;
    connect(target, (...args) => {
      const socket = args[1];
      // TLS 1.3 sends its session tickets after the handshake, to the listeners of this event.
      socket?.on('session', (session: Buffer) => {
        sessions.delete(origin);
        sessions.set(origin, session);
        if (sessions.size > KEPT_SESSIONS) sessions.delete(sessions.keys().next().value!);
      });
      callback(...args);
    });
  };
}
