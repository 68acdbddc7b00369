import { initTRPC, TRPCError } from '@trpc/server';
import { randomBytes } from 'node:crypto';
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

/**
 * A failure the caller is not told about (raw SQL, file paths): the caller sees only its id, the
 * daemon log has the real error under the same id (control/server.ts logs it as `error_id`).
 */
export class InternalControlError extends TRPCError {
  constructor(
    cause: unknown,
    readonly errorId = randomBytes(4).toString('hex'),
  ) {
    super({ code: 'INTERNAL_SERVER_ERROR', message: internalMessage(errorId), cause });
  }
}

function internalMessage(errorId: string): string {
  return `internal error ${errorId}; the daemon log has the details under error_id ${errorId}`;
}

/** Ids of internal errors that reached the caller some other way (a subscription's), so the log and the answer name the same one. */
const otherErrorIds = new WeakMap<TRPCError, string>();

/** The id under which an internal error is shown to its caller and logged. */
export function internalErrorId(error: TRPCError): string {
  if (error instanceof InternalControlError) return error.errorId;
  let id = otherErrorIds.get(error);
  if (id === undefined) {
    id = randomBytes(4).toString('hex');
    otherErrorIds.set(error, id);
  }
  return id;
}

const t = initTRPC.context<ControlContext>().create({
  // No stack traces in answers, whatever NODE_ENV says: they name the daemon's files.
  isDev: false,
  // The last guard: an internal error that did not pass the areaErrors middleware (a subscription
  // failing mid-stream) still reaches the caller as an id only.
  errorFormatter: ({ shape, error }) => (error.code === 'INTERNAL_SERVER_ERROR' ? { ...shape, message: internalMessage(internalErrorId(error)) } : shape),
});

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
 * and gets the tRPC code of its category (its `code` travels as the cause); anything else, and a
 * PorticoError of category `internal`, is an InternalControlError: logged by the server, shown to
 * the caller as an id only.
 */
export function toTRPCError(error: unknown): TRPCError {
  if (error instanceof InternalControlError) return error;
  if (error instanceof TRPCError) return error.code === 'INTERNAL_SERVER_ERROR' ? new InternalControlError(error.cause ?? error) : error;
  if (error instanceof PorticoError && error.category !== 'internal') return new TRPCError({ code: TRPC_CODES[error.category], message: error.message, cause: error });
  return new InternalControlError(error);
}

const areaErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  // tRPC wraps what a procedure threw: a TRPCError it made itself (bad input) passes as it is.
  const { error } = result;
  throw toTRPCError(error.cause instanceof PorticoError ? error.cause : error);
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
