// The daemon's real control server over a real ConfigManager whose login controls report the
// provider state the test sets (the gateway's HTTP front reports it in the daemon).
import type { LoginStatus } from '../../../daemon/src/gateway/access/access-check.js';
import { EventBus } from '../../../daemon/src/control/event-bus.js';
import { startControlServer } from '../../../daemon/src/control/server.js';
import { createGatewayControl } from '../../../daemon/src/gateway/control/gateway-control.js';
import { ScriptedHealth } from '../../../daemon/src/gateway/control/test-support.js';
import { MemoryLogger, RecordingTarget } from '../../../daemon/src/gateway/reload/test-support.js';
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
  const server = await startControlServer({ host: '127.0.0.1', port: 0, token: TOKEN, services: { status, events: bus, config: gateway.config, backends: gateway.backends } });
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
