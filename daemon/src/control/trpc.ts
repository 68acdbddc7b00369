import { initTRPC, TRPCError } from '@trpc/server';
import { PorticoError, type ErrorCategory } from '../core/errors.js';
import type { EventBus } from './event-bus.js';
import type { SystemStatus } from './client-types.js';

/**
 * Names one area's control service with its type. The area that owns the service declares the
 * key beside its router (`export const CONFIG_SERVICE = serviceKey<ConfigControl>('config')`), its
 * install provides it, its procedures read it with `areaService`; the control API itself knows
 * no area.
 */
export interface ServiceKey<T> {
  readonly name: string;
  /** Carries T for the compiler only. */
  readonly type?: T;
}

export function serviceKey<T>(name: string): ServiceKey<T> {
  return { name };
}

/** What the control API can reach in the daemon: status, events, and the services the running areas provide. */
export class ControlServices {
  readonly #provided = new Map<string, unknown>();

  constructor(
    readonly status: () => Promise<SystemStatus>,
    readonly events: EventBus,
  ) {}

  /** Attaches an area's service; a key provided twice keeps the first (areas with several parts share one). */
  provide<T>(key: ServiceKey<T>, service: T): this {
    if (!this.#provided.has(key.name)) this.#provided.set(key.name, service);
    return this;
  }

  find<T>(key: ServiceKey<T>): T | undefined {
    return this.#provided.get(key.name) as T | undefined;
  }
}

export interface ControlContext {
  services: ControlServices;
}

const t = initTRPC.context<ControlContext>().create();

const TRPC_CODES = {
  invalid: 'BAD_REQUEST',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  forbidden: 'FORBIDDEN',
  unavailable: 'PRECONDITION_FAILED',
  internal: 'INTERNAL_SERVER_ERROR',
} as const satisfies Record<ErrorCategory, TRPCError['code']>;

/**
 * The one place an area's error becomes a control API error: a PorticoError keeps its message
 * and gets the tRPC code of its category (its `code` travels as the cause); anything else stays an
 * internal error, logged by the server and not shown to the caller.
 */
export function toTRPCError(error: unknown): TRPCError {
  if (error instanceof TRPCError) return error;
  if (error instanceof PorticoError) return new TRPCError({ code: TRPC_CODES[error.category], message: error.message, cause: error });
  return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'internal error; see the daemon log', cause: error });
}

const areaErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof PorticoError) throw toTRPCError(result.error.cause);
  return result;
});

export const router = t.router;
/**
 * Every procedure is authenticated before the context exists (see server.ts), so one kind is
 * enough; its errors pass through toTRPCError.
 */
export const procedure = t.procedure.use(areaErrors);

/** The area's service, or a clear error when this daemon process does not run that area. */
export function areaService<T>(ctx: ControlContext, key: ServiceKey<T>): T {
  const service = ctx.services.find(key);
  if (service === undefined) {
    throw new PorticoError('area_not_running', `${key.name} does not run in this daemon process; start it with --mode all or the mode that runs it`, { category: 'unavailable' });
  }
  return service;
}

/** A lookup's value, or not_found naming `what` (`job 3f…`). */
export function found<T>(value: T | null, what: string): T {
  if (value === null) throw new PorticoError('not_found', `${what} not found`, { category: 'not_found' });
  return value;
}
