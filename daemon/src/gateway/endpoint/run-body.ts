import { Readable } from 'node:stream';
import type { HandlerBody } from '../config/model.js';
import type { EndpointContext } from '../contracts.js';
import type { RequestScope } from '../eval/request-scope.js';
import type { BodyPlan } from './body-plan.js';
import { asGatewayError, GatewayError } from '../errors/error-types.js';
import { discardBody } from './read-all.js';
import { responseFromBlock } from './response-block.js';
import type { ModifiedResponse, ResponseContext } from './response-contexts.js';
import { runUpstream, type UpstreamBlock, type UpstreamEnv, type UpstreamResult } from './upstream.js';

/** A body's client response and its response contexts still to apply (its own, then its proxy's and backend's). */
export interface BodyOutcome {
  readonly response: ModifiedResponse;
  readonly contexts: readonly ResponseContext[];
}

export type BodyEnv = Omit<UpstreamEnv, 'body' | 'clientBlock'>;

/**
 * A compiled endpoint's BodyEnv: its AbortSignal, made only when a step reads it, is a getter
 * of the class, not of an object literal (see ClientBlockRequest in backend-request.ts).
 */
export class EndpointBodyEnv implements BodyEnv {
  constructor(
    readonly ctx: EndpointContext,
    readonly scope: RequestScope,
    readonly plan: BodyPlan,
  ) {}

  get signal(): AbortSignal {
    return this.ctx.signal;
  }
}

/** The UpstreamEnv of one body's blocks: its BodyEnv's, signal read only when needed. */
class BlockEnv implements UpstreamEnv {
  readonly ctx: EndpointContext;
  readonly scope: RequestScope;
  readonly plan: BodyPlan;
  readonly #env: BodyEnv;

  constructor(
    env: BodyEnv,
    readonly body: HandlerBody,
    readonly clientBlock: string | null,
  ) {
    this.ctx = env.ctx;
    this.scope = env.scope;
    this.plan = env.plan;
    this.#env = env;
  }

  get signal(): AbortSignal {
    return this.#env.signal;
  }
}

/**
 * Runs an endpoint's (or error handler's) proxies and requests stage by stage — a stage's
 * blocks in parallel, stages in order — then builds the client response from the response
 * block or the `default` block. A block whose dependency failed fails with `sequence`; the
 * error of the most downstream failed block is thrown. Null when the body produces no
 * response (an error handler with neither a response nor a default block).
 */
export async function runBody(body: HandlerBody, env: BodyEnv): Promise<BodyOutcome | null> {
  // Not a spread: that would read `signal`, which is made only when used.
  const upstreamEnv = new BlockEnv(env, body, body.response ? null : 'default');
  // One block in one stage (an endpoint's usual proxy): nothing to keep for other blocks.
  const only = body.stages.length === 1 ? body.stages[0] : undefined;
  if (only !== undefined && only.length === 1) {
    const name = only[0] as string;
    let result: UpstreamResult;
    try {
      result = await runUpstream(block(body, name) as UpstreamBlock, upstreamEnv);
    } catch (error) {
      throw asGatewayError(error, 'backend');
    }
    return outcomeOf(body, env, name === 'default' ? result : undefined);
  }
  const results = new Map<string, UpstreamResult>();
  const failures = new Map<string, GatewayError>();
  const dependsOn = (name: string): readonly string[] => block(body, name)?.config.dependsOn ?? [];
  const runOne = async (name: string): Promise<void> => {
    const failedDep = dependsOn(name).find((d) => failures.has(d));
    if (failedDep !== undefined) {
      const cause = failures.get(failedDep) as GatewayError;
      failures.set(name, new GatewayError('sequence', `"${name}" did not run: "${failedDep}" failed: ${cause.detail}`, { cause }));
      return;
    }
    try {
      results.set(name, await runUpstream(block(body, name) as UpstreamBlock, upstreamEnv));
    } catch (error) {
      failures.set(name, asGatewayError(error, 'backend'));
    }
  };
  for (const stage of body.stages) {
    // One block (the usual proxy) needs no Promise.all.
    if (stage.length === 1) await runOne(stage[0] as string);
    else await Promise.all(stage.map(runOne));
  }
  if (failures.size > 0) {
    discard(results);
    throw mostDownstream(body.stages, failures);
  }
  return outcomeOf(body, env, results.get('default'));
}

/** The client response: the response block's, else the `default` block's (`main`), else none. */
function outcomeOf(body: HandlerBody, env: BodyEnv, main: UpstreamResult | undefined): BodyOutcome | null {
  const own: ResponseContext = { modifiers: body.modifiers, scope: env.scope, status: true };
  if (body.response) {
    return { response: responseFromBlock(body.response, env.scope), contexts: [own] };
  }
  if (!main) return null;
  return { response: { status: main.status, headers: main.headers, body: main.body }, contexts: [own, ...main.responseContexts] };
}

function block(body: HandlerBody, name: string): UpstreamBlock | undefined {
  const proxy = body.proxies.find((p) => p.name === name);
  if (proxy) return { kind: 'proxy', config: proxy };
  const request = body.requests.find((r) => r.name === name);
  return request ? { kind: 'request', config: request } : undefined;
}

/** The failure of the latest stage (the `default` block first within it): the one closest to the response. */
function mostDownstream(stages: readonly (readonly string[])[], failures: ReadonlyMap<string, GatewayError>): GatewayError {
  for (let i = stages.length - 1; i >= 0; i--) {
    const stage = stages[i] ?? [];
    const pick = failures.get('default') !== undefined && stage.includes('default') ? 'default' : stage.find((n) => failures.has(n));
    if (pick !== undefined) return failures.get(pick) as GatewayError;
  }
  return [...failures.values()][0] as GatewayError;
}

function discard(results: ReadonlyMap<string, UpstreamResult>): void {
  for (const r of results.values()) if (r.body instanceof Readable) discardBody(r.body);
}
