import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { GatewayError } from '../errors/error-types.js';
import { loadDefinitions, testLogger } from './testing/backend-fixture.js';
import { createHealthMonitor } from '../health/health-monitor.js';
import { createBackendSet } from './backend-set.js';
import { tempFiles } from '../config/testing/config-files.js';

test('a ca_file that vanished or is not PEM since the load fails the build with a configuration error naming backend and file', async () => {
  const dir = tempFiles({ 'ca.pem': '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n' });
  const caFile = join(dir, 'ca.pem');
  const config = await loadDefinitions(`backend "b" {\n origin = "https://127.0.0.1:1"\n ca_file = "${caFile}"\n}`);
  const health = createHealthMonitor({ logger: testLogger() });

  const notPem = (() => {
    try {
      createBackendSet(config, { health, env: {} });
    } catch (error) {
      return error;
    }
    return null;
  })();
  expect(notPem).toBeInstanceOf(GatewayError);
  expect(notPem).toMatchObject({ kind: 'configuration', detail: expect.stringContaining(`backend "b": ca_file ${caFile} is not a PEM certificate`) });

  rmSync(caFile);
  expect(() => createBackendSet(config, { health, env: {} })).toThrow(`backend "b": cannot read ca_file ${caFile}`);
});
