import { randomBytes } from 'node:crypto';
import type { EndpointConfig, ErrorHandlerConfig, GatewayConfig, HandlerBody } from '../config/model.js';
import type { BackendHealth, HealthChange, HealthMonitor } from '../contracts.js';
import type { BackendHealthChangeView, BackendHealthView, BackendUpdate, BackendView } from './control-types.js';
import { UpdateFeed } from './update-feed.js';

/** What the control API reaches for `backends` (set by the gateway area). */
export interface BackendsControl {
  list(): BackendView[];
  /** State changes, newest first. */
  timeline(): BackendHealthChangeView[];
  /** Each finished check and each state change after `lastId` (or from now on), until `signal` aborts. */
  changes(lastId: string | null | undefined, signal: AbortSignal | undefined): AsyncIterable<BackendUpdate>;
  /** Stops listening to the monitor. */
  close(): void;
}

const NEVER_CHECKED: BackendHealthView = { state: 'unknown', lastCheckAt: null, failures: 0, latencyMs: null, error: '', checked: false, since: null };

export function backendsControl(config: () => GatewayConfig | null, health: HealthMonitor): BackendsControl {
  const instance = randomBytes(4).toString('hex');
  let seq = 0;
  const feed = new UpdateFeed<BackendUpdate>(200);
  const push = (backend: string, change: BackendHealthChangeView | null): void => {
    seq += 1;
    const current = health.snapshot()[backend];
    feed.push({ id: `${instance}:${seq}`, backend, health: current ? healthView(current) : NEVER_CHECKED, change });
  };
  const offCheck = health.onCheck((backend) => push(backend, null));
  const offChange = health.onChange((change) => push(change.backend, changeView(change)));
  return {
    list() {
      const active = config();
      if (!active) return [];
      const snapshot = health.snapshot();
      const users = backendUsers(active);
      return Object.values(active.backends).map((b): BackendView => {
        const h = snapshot[b.name];
        return {
          name: b.name,
          origin: b.origin,
          anonymous: b.anonymous,
          useWhenUnhealthy: b.useWhenUnhealthy,
          health: h ? healthView(h) : { ...NEVER_CHECKED, checked: b.health !== null },
          usedBy: [...(users.get(b.name) ?? [])].sort(),
        };
      });
    },
    timeline: () => [...health.timeline()].reverse().map(changeView),
    changes: (lastId, signal) => feed.stream(lastId, signal),
    close() {
      offCheck();
      offChange();
    },
  };
}

export function healthView(h: BackendHealth): BackendHealthView {
  return { state: h.state, lastCheckAt: h.lastCheckAt, failures: h.failures, latencyMs: h.latencyMs, error: h.error, checked: h.checked, since: h.since };
}

function changeView(c: HealthChange): BackendHealthChangeView {
  return { backend: c.backend, from: c.from, to: c.to, at: c.at, error: c.error };
}

/** Backend name → the endpoint paths whose proxies or requests (error handlers' included) use it. */
export function backendUsers(config: GatewayConfig): Map<string, Set<string>> {
  const users = new Map<string, Set<string>>();
  const add = (backend: string, who: string): void => {
    let set = users.get(backend);
    if (!set) users.set(backend, (set = new Set()));
    set.add(who);
  };
  const visit = (body: HandlerBody, who: string): void => {
    for (const block of [...body.proxies, ...body.requests]) add(block.backend, who);
    for (const handler of body.errorHandlers) visit(handler, who);
  };
  const visitHandlers = (handlers: readonly ErrorHandlerConfig[], who: string): void => handlers.forEach((h) => visit(h, who));
  const visitEndpoints = (endpoints: readonly EndpointConfig[]): void => endpoints.forEach((e) => visit(e, e.path));
  for (const server of config.servers) {
    visitEndpoints(server.endpoints);
    for (const api of server.apis) {
      visitEndpoints(api.endpoints);
      visitHandlers(api.errorHandlers, `${api.basePath} error_handler`);
    }
  }
  return users;
}
