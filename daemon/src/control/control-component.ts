import type { AnyTRPCRouter } from '@trpc/server';
import type { Component } from '../core/component.js';
import { describeListenError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { formatAddress, type ListenAddress } from '../core/settings.js';
import { startControlServer, type ControlServer } from './server.js';
import type { ControlServices } from './trpc.js';

/** The control API and web dashboard as a daemon component. */
export class ControlComponent implements Component {
  readonly name = 'control';
  #server: ControlServer | null = null;

  constructor(
    private readonly address: ListenAddress,
    private readonly token: string,
    private readonly services: ControlServices,
    private readonly router: AnyTRPCRouter,
    private readonly webRoot: string,
    private readonly logger: Logger,
  ) {}

  get url(): string | null {
    return this.#server?.url ?? null;
  }

  async start(): Promise<void> {
    const addr = formatAddress(this.address);
    try {
      this.#server = await startControlServer({ ...this.address, token: this.token, services: this.services, router: this.router, webRoot: this.webRoot, logger: this.logger });
    } catch (error) {
      throw new Error(describeListenError(error, 'control API', addr, 'PORTICO_CONTROL_ADDR'), { cause: error });
    }
    this.logger.info('control API and web dashboard listening', { url: this.#server.url });
  }

  describe(): string | null {
    return this.#server?.url ?? null;
  }

  async stop(): Promise<void> {
    await this.#server?.close();
    this.#server = null;
  }
}
