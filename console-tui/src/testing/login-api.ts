// The daemon's real control server over a real ConfigManager whose login controls report the
// provider state the test sets (the gateway's HTTP front reports it in the daemon).
import type { LoginStatus } from '../../../daemon/src/gateway/access/access-check.js';
import { EventBus } from '../../../daemon/src/control/event-bus.js';
import { ControlServices } from '../../../daemon/src/control/trpc.js';
import { BACKENDS_SERVICE, CONFIG_SERVICE } from '../../../daemon/src/gateway/control/control-router.js';
import { startAppControlServer } from '../../../daemon/src/main/testing/control-server.js';
import { createGatewayControl } from '../../../daemon/src/gateway/control/control-service.js';
import { ScriptedHealth } from '../../../daemon/src/gateway/control/testing/control-api.js';
import { MemoryLogger, RecordingTarget } from '../../../daemon/src/gateway/reload/testing/config-files.js';
import { fixedStatus } from '../../../daemon/src/control/testing/fixed-status.js';

export type { LoginStatus };

export interface LoginApi {
  url: string;
  token: string;
  /** What `config.routes` reports for the login controls from now on. */
  logins: LoginStatus[];
  close(): Promise<void>;
}

const TOKEN = 'test-token-0123456789abcdef';

export async function startLoginApi(files: string[]): Promise<LoginApi> {
  const bus = new EventBus('boot');
  const health = new ScriptedHealth();
  const api: Partial<LoginApi> & { logins: LoginStatus[] } = { logins: [] };
  const gateway = createGatewayControl({ files, env: {}, target: new RecordingTarget(), health, events: bus, logger: new MemoryLogger(), loginStatus: () => api.logins });
  await gateway.manager.start();
  const status = fixedStatus(bus, 'all');
  const services = new ControlServices(status, bus).provide(CONFIG_SERVICE, gateway.config).provide(BACKENDS_SERVICE, gateway.backends);
  const server = await startAppControlServer({ host: '127.0.0.1', port: 0, token: TOKEN, services });
  return Object.assign(api, {
    url: server.url,
    token: TOKEN,
    async close() {
      await server.close();
      await gateway.manager.stop();
      gateway.close();
    },
  });
}
