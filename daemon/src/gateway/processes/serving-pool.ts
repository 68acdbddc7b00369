/**
 * The daemon's side of several gateway serving processes (PORTICO_GATEWAY_PROCESSES above 1):
 * forks them as cluster workers sharing the gateway's ports, switches them to each new
 * configuration together (every process prepares it, then all commit, or all abort when one
 * could not), sends them the backends' health from the daemon's checks, gathers their metrics
 * for the exporter, and starts a new process in place of one that died.
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../core/logger.js';
import { atomicStdoutWrites } from '../../core/stdout-batch.js';
import type { EventDetails } from '../../control/client-types.js';
import type { GatewayConfig } from '../config/model.js';
import type { LoginStatus } from '../access/access-check.js';
import { replayClaims } from '../access/saml/index.js';
import type { AccessDenial, HealthMonitor } from '../contracts.js';
import { DevCertificateStore, devCertificateNames } from '../http/dev-tls.js';
import type { FamilySnapshot } from '../metrics/exposition.js';
import type { FromServing, ServingInit, ToServing } from './protocol.js';
import { plural } from '../../display/counts.js';

const ENTRY = fileURLToPath(new URL('./serving-entry.js', import.meta.url));
/** A process that does not answer the daemon in this long is treated as failed for that step. */
const REPLY_TIMEOUT_MS = 30_000;
/** A scrape does not wait longer than this for a process's figures (it then shows the others'). */
const METRICS_TIMEOUT_MS = 2_000;
/** A process that dies sooner than this after its start is started again only after a pause, doubling up to a minute. */
const QUICK_EXIT_MS = 10_000;
const MAX_RESTART_DELAY_MS = 60_000;

export interface ServingPoolOptions {
  readonly processes: number;
  readonly init: Omit<ServingInit, 't' | 'index'>;
  readonly health: HealthMonitor;
  readonly logger: Logger;
  readonly onDenial: (denial: AccessDenial) => void;
  readonly onNotice: (level: 'warn' | 'error', message: string, details: EventDetails | null) => void;
  /** A process exited or a new one started serving (what `describe()` says changed). */
  readonly onMembership?: () => void;
}

interface Member {
  readonly index: number;
  readonly worker: Worker;
  readonly startedAt: number;
  /** Replies awaited, by `type:id`. */
  readonly waiting: Map<string, { resolve: (message: FromServing) => void; reject: (error: Error) => void }>;
  ready: boolean;
  /** Resolves when the process took its init; rejects when it exits before. */
  whenReady: Promise<void>;
  addresses: readonly string[];
  exited: Promise<void>;
}

export class ServingPool {
  readonly #options: ServingPoolOptions;
  readonly #members = new Map<number, Member>();
  readonly #devCertificates: DevCertificateStore;
  #seq = 0;
  /** The configuration texts serving now, for a process started later. */
  #texts: readonly (readonly [string, string])[] | null = null;
  #login: readonly LoginStatus[] = [];
  /** Applies and the catching up of a new process, one at a time. */
  #queue: Promise<unknown> = Promise.resolve();
  #stopping = false;
  #stopped: Promise<void> | null = null;
  #healthQueued = false;
  readonly #restartDelay = new Map<number, number>();
  /** All processes took their init once: from then on one that exits is replaced. */
  #started = false;
  /** Processes started in place of one that exited, since the daemon started. */
  #restarts = 0;
  readonly #unsubscribe: Array<() => void> = [];

  constructor(options: ServingPoolOptions) {
    this.#options = options;
    this.#devCertificates = new DevCertificateStore(options.init.dataDir, (message, fields) => options.logger.info(message, fields));
  }

  /** Forks the processes and waits until each is ready for a configuration. */
  async start(): Promise<void> {
    cluster.setupPrimary({ exec: ENTRY, args: [], silent: false });
    // The daemon's own lines (health checks, reloads) share the stdout with the processes' lines.
    atomicStdoutWrites();
    this.#unsubscribe.push(this.#options.health.onCheck(() => this.#queueHealth()), this.#options.health.onChange(() => this.#queueHealth()));
    const members = Array.from({ length: this.#options.processes }, (_, i) => this.#fork(i + 1));
    await Promise.all(
      members.map((m) =>
        m.whenReady.catch((error: unknown) => {
          throw new Error(`gateway serving process ${m.index} did not start: ${error instanceof Error ? error.message : String(error)}; what it wrote is in the log above`);
        }),
      ),
    );
    this.#started = true;
  }

  /** Serves `config` in every process, built from `texts`; throws, with the previous one still serving everywhere, when any process cannot. */
  apply(config: GatewayConfig, texts: ReadonlyMap<string, string>): Promise<void> {
    const run = this.#queue.then(() => this.#apply(config, [...texts]));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #apply(config: GatewayConfig, texts: readonly (readonly [string, string])[]): Promise<void> {
    if (this.#stopping) throw new Error('gateway: cannot apply a configuration while shutting down');
    // Made here once, so the processes all read the same certificate instead of each making one.
    if (config.settings.httpsDevProxy.length > 0) await this.#devCertificates.credentialsFor(devCertificateNames(config));
    const members = [...this.#members.values()].filter((m) => m.ready);
    if (members.length === 0) throw new Error('gateway: no serving process is running (see the log for why they exited)');
    await this.#switch(members, texts);
    this.#texts = texts;
  }

  /** Prepares `texts` in every member, then commits in all, or aborts in all when one failed. */
  async #switch(members: readonly Member[], texts: readonly (readonly [string, string])[]): Promise<void> {
    const id = ++this.#seq;
    const outcomes = await Promise.allSettled(members.map((m) => this.#ask(m, { t: 'prepare', id, texts }, `prepared:${id}`)));
    const problems = outcomes.flatMap((outcome, i) => {
      const index = members[i]!.index;
      if (outcome.status === 'rejected') return [`gateway process ${index}: ${(outcome.reason as Error).message}`];
      const reply = outcome.value as Extract<FromServing, { t: 'prepared' }>;
      return reply.error === null ? [] : [reply.error];
    });
    if (problems.length > 0) {
      await Promise.allSettled(members.map((m) => this.#ask(m, { t: 'abort', id }, `aborted:${id}`)));
      // The processes fail alike (a port in use, a certificate file); one message says it.
      throw new Error([...new Set(problems)].join('; '));
    }
    const commits = await Promise.allSettled(members.map((m) => this.#ask(m, { t: 'commit', id }, `committed:${id}`)));
    commits.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled') members[i]!.addresses = (outcome.value as Extract<FromServing, { t: 'committed' }>).addresses;
    });
  }

  /** Sends the processes what the daemon's health checks found (after a reload's `track` too). */
  pushHealth(): void {
    this.#queueHealth();
  }

  /** The counters and histograms of each process that answers in time. */
  async gather(): Promise<FamilySnapshot[][]> {
    const members = [...this.#members.values()].filter((m) => m.ready);
    const id = ++this.#seq;
    const outcomes = await Promise.allSettled(members.map((m) => this.#ask(m, { t: 'metrics', id }, `metrics:${id}`, METRICS_TIMEOUT_MS)));
    return outcomes.flatMap((o) => (o.status === 'fulfilled' ? [[...(o.value as Extract<FromServing, { t: 'metrics' }>).families]] : []));
  }

  /** Where the processes listen, as `host:port`. */
  addresses(): string[] {
    return [...new Set([...this.#members.values()].flatMap((m) => m.addresses))];
  }

  /** The login providers' state as a serving process last reported it. */
  loginStatus(): readonly LoginStatus[] {
    return this.#login;
  }

  /** For the status line: how many processes serve, and how many were replaced. */
  describe(): string {
    const serving = [...this.#members.values()].filter((m) => m.ready && m.addresses.length > 0).length;
    const count = this.#options.processes;
    const processes = serving === count ? `${count} processes` : `${serving} of ${count} processes serving`;
    return this.#restarts === 0 ? processes : `${processes}, ${plural(this.#restarts, 'restart')}`;
  }

  /** The processes' ids (for the log and tests). */
  pids(): number[] {
    return [...this.#members.values()].map((m) => m.worker.process.pid ?? 0);
  }

  /** Each process drains (health 500, the shutdown delay), finishes its requests within the shutdown timeout and exits. */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    this.#stopping = true;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    const members = [...this.#members.values()];
    for (const m of members) this.#send(m, { t: 'stop' });
    const { shutdownDelayMs, shutdownTimeoutMs } = this.#options.init;
    const deadline = setTimeout(() => {
      for (const m of this.#members.values()) {
        this.#options.logger.warn(`gateway process ${m.index} did not stop in time; killing it`, { pid: m.worker.process.pid });
        m.worker.process.kill('SIGKILL');
      }
    }, shutdownDelayMs + shutdownTimeoutMs + 5_000);
    await Promise.all(members.map((m) => m.exited));
    clearTimeout(deadline);
  }

  #fork(index: number): Member {
    const worker = cluster.fork();
    let markExited: () => void = () => {};
    const member: Member = {
      index,
      worker,
      startedAt: Date.now(),
      waiting: new Map(),
      ready: false,
      whenReady: Promise.resolve(),
      addresses: [],
      exited: new Promise<void>((resolve) => (markExited = resolve)),
    };
    // Waited for from the fork on, so an answer that comes early is not missed.
    member.whenReady = this.#ask(member, null, 'ready').then(() => undefined);
    member.whenReady.catch(() => undefined);
    this.#members.set(index, member);
    worker.on('message', (message: FromServing) => this.#onMessage(member, message));
    worker.on('error', (error) => this.#options.logger.warn(`gateway process ${index}: ${error.message}`));
    worker.once('exit', (code, signal) => {
      this.#members.delete(index);
      const why = signal ? `signal ${signal}` : `code ${code}`;
      for (const { reject } of member.waiting.values()) reject(new Error(`exited (${why}) before it answered`));
      member.waiting.clear();
      markExited();
      if (this.#stopping) return;
      if (!this.#started) {
        // The daemon's start fails with it (start() names it); nothing is replaced.
        this.#options.logger.error(`gateway process ${index} (pid ${worker.process.pid}) exited with ${why} while starting`, { pid: worker.process.pid, code, signal });
        return;
      }
      const quick = Date.now() - member.startedAt < QUICK_EXIT_MS;
      const delay = quick ? Math.min((this.#restartDelay.get(index) ?? 500) * 2, MAX_RESTART_DELAY_MS) : 0;
      this.#restartDelay.set(index, quick ? delay : 500);
      const message = `gateway process ${index} (pid ${worker.process.pid}) exited with ${why}; starting another${delay > 0 ? ` in ${Math.round(delay / 1000)}s` : ''}; the other processes serve meanwhile`;
      this.#options.logger.error(message, { pid: worker.process.pid, code, signal });
      this.#options.onMembership?.();
      setTimeout(() => this.#replace(index), delay).unref();
    });
    return member;
  }

  /** A new process in place of one that exited, serving what the others serve. */
  #replace(index: number): void {
    if (this.#stopping) return;
    const member = this.#fork(index);
    const caughtUp = this.#queue.then(async () => {
      await member.whenReady;
      this.#queueHealth();
      if (this.#texts) await this.#switch([member], this.#texts);
      this.#restarts += 1;
      this.#options.logger.info(`gateway process ${index} started again`, { pid: member.worker.process.pid });
      this.#options.onMembership?.();
    });
    this.#queue = caughtUp.catch((error: unknown) => {
      this.#options.logger.error(`gateway process ${index} could not take the configuration: ${error instanceof Error ? error.message : String(error)}`);
      member.worker.process.kill('SIGKILL');
    });
  }

  #onMessage(member: Member, message: FromServing): void {
    switch (message.t) {
      case 'denial':
        this.#options.onDenial(message.denial);
        return;
      case 'notice':
        this.#options.onNotice(message.level, message.message, message.details);
        return;
      case 'claim':
        void Promise.resolve(replayClaims().claim(message.key, message.expiresAtMs ?? Infinity, message.nowMs)).then((fresh) => this.#send(member, { t: 'claimed', id: message.id, fresh }));
        return;
      case 'login':
        if (member.index === Math.min(...this.#members.keys())) this.#login = message.status;
        return;
      case 'up':
        this.#send(member, { t: 'init', index: member.index, ...this.#options.init });
        return;
      case 'ready':
        member.ready = true;
        break;
    }
    const key = message.t === 'ready' ? 'ready' : `${message.t}:${message.id}`;
    const waiter = member.waiting.get(key);
    member.waiting.delete(key);
    waiter?.resolve(message);
  }

  /** Sends `message` (nothing for `ready`: the init goes when the process is up) and waits for the reply named `key`. */
  #ask(member: Member, message: ToServing | null, key: string, timeoutMs = REPLY_TIMEOUT_MS): Promise<FromServing> {
    return new Promise<FromServing>((resolve, reject) => {
      const timer = setTimeout(() => {
        member.waiting.delete(key);
        reject(new Error(`no answer within ${timeoutMs / 1000}s`));
      }, timeoutMs);
      member.waiting.set(key, {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      if (message) this.#send(member, message);
    });
  }

  #send(member: Member, message: ToServing): void {
    if (!member.worker.isConnected()) return;
    member.worker.send(message, (error: Error | null) => {
      if (error) this.#options.logger.warn(`gateway process ${member.index}: could not send it the ${message.t}`, { error: error.message });
    });
  }

  #queueHealth(): void {
    if (this.#healthQueued) return;
    this.#healthQueued = true;
    setImmediate(() => {
      this.#healthQueued = false;
      const snapshot = this.#options.health.snapshot();
      for (const m of this.#members.values()) if (m.ready) this.#send(m, { t: 'health', snapshot });
    });
  }
}
