import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './load.js';

// A gateway serving process builds exactly the texts the daemon validated, even when the file
// on disk changed since (the daemon then reloads everyone again).
describe('loadGatewayConfig with given texts', () => {
  it('loads the given text of a file instead of reading it, with its hash and positions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-given-'));
    const file = join(dir, 'gateway.hcl');
    writeFileSync(file, 'server {\n  endpoint "/on-disk" {\n    response { body = "disk" }\n  }\n}\n');
    const given = 'server {\n  endpoint "/given" {\n    response { body = "given" }\n  }\n}\n';
    const loaded = await loadGatewayConfig([file], {}, { texts: new Map([[file, given]]) });
    expect(loaded.config?.servers[0]?.endpoints.map((e) => e.pattern)).toEqual(['/given']);
    expect(loaded.texts.get(file)).toBe(given);
    const broken = await loadGatewayConfig([file], {}, { texts: new Map([[file, 'server {\n  bogus = 1\n}\n']]) });
    expect(broken.config).toBeNull();
    expect(broken.diagnostics[0]).toMatchObject({ summary: 'Unsupported argument', range: { filename: file, start: { line: 2 } } });
  });
});
