import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './load.js';
import { tempFiles } from './testing/config-files.js';

// A gateway serving process builds exactly the texts the daemon validated, even when the file
// on disk changed since (the daemon then reloads everyone again).
describe('loadGatewayConfig with given texts', () => {
  it('loads the given text of a file instead of reading it, with its hash and positions', async () => {
    const file = join(tempFiles({ 'gateway.hcl': 'server {\n  endpoint "/on-disk" {\n    response { body = "disk" }\n  }\n}\n' }), 'gateway.hcl');
    const given = 'server {\n  endpoint "/given" {\n    response { body = "given" }\n  }\n}\n';
    const loaded = await loadGatewayConfig([file], {}, { texts: new Map([[file, given]]) });
    expect(loaded.config?.servers[0]?.endpoints.map((e) => e.pattern)).toEqual(['/given']);
    expect(loaded.texts.get(file)).toBe(given);
    const broken = await loadGatewayConfig([file], {}, { texts: new Map([[file, 'server {\n  bogus = 1\n}\n']]) });
    expect(broken.config).toBeNull();
    expect(broken.diagnostics[0]).toMatchObject({ summary: 'Unsupported argument', range: { filename: file, start: { line: 2 } } });
  });
});
