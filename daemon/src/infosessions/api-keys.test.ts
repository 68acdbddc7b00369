import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate } from '../store/migrate.js';
import { DAEMON_MIGRATIONS as MIGRATION_SETS } from '../main/areas.js';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import type { Store } from '../store/types.js';
import { ApiKeys, hashKey } from './api-keys.js';

const factories = await testDatabases();

describe.each(factories.map((f) => [f.kind, f] as const))('API keys on %s', (_kind, factory) => {
  let database: TestDatabase;
  let store: Store;
  let now = Date.UTC(2026, 10, 22, 12);
  const keys = () => new ApiKeys(() => store, () => now);

  beforeEach(async () => {
    database = factory();
    store = await database.open();
    await migrate(store, MIGRATION_SETS);
  });
  afterEach(async () => {
    await store.close();
    await database.destroy();
  });

  it('stores only a hash and a 4-character prefix, and shows the key masked', async () => {
    const { key, secret } = await keys().create({ name: 'mobile app' });
    expect(secret).toMatch(/^[0-9a-f]{32}$/);
    expect(key).toMatchObject({ name: 'mobile app', masked: `${secret.slice(0, 4)}***`, state: 'active', requestsThisMonth: 0, lastUsedAt: null, monthlyLimit: null });
    const rows = await store.all<Record<string, unknown>>('SELECT * FROM infosessions_api_keys');
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows[0]?.key_hash).toBe(hashKey(secret));
    expect(await keys().identify(secret)).toEqual({ id: key.id, state: 'active', monthlyLimit: null });
    expect(await keys().identify('nope')).toBeNull();
  });

  it('bans, unbans and revokes; a revoked key cannot come back', async () => {
    const { key } = await keys().create({ name: 'k' });
    expect((await keys().ban(key.id)).state).toBe('banned');
    expect((await keys().unban(key.id)).state).toBe('active');
    expect((await keys().revoke(key.id)).state).toBe('revoked');
    await expect(keys().ban(key.id)).rejects.toThrow(/is revoked; it cannot become banned/);
    await expect(keys().ban('key_missing')).rejects.toThrow(/no API key with id key_missing/);
  });

  it('counts exactly under concurrent calls, per month, and stops at the monthly limit', async () => {
    const { key } = await keys().create({ name: 'busy' });
    const identity = { id: key.id, state: 'active' as const, monthlyLimit: null };
    const other = await database.open();
    try {
      const results = await Promise.all(Array.from({ length: 60 }, (_, i) => new ApiKeys(() => (i % 2 ? other : store), () => now).count(identity)));
      expect(results.map((r) => r.requests).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    } finally {
      await other.close();
    }
    expect((await keys().list())[0]).toMatchObject({ requestsThisMonth: 60, lastUsedAt: new Date(now).toISOString() });
    now = Date.UTC(2026, 11, 1, 0, 0, 1);
    expect(await keys().usage(key.id)).toBe(0);

    const limited = { id: key.id, state: 'active' as const, monthlyLimit: 5 };
    const limitedResults = await Promise.all(Array.from({ length: 12 }, () => keys().count(limited)));
    expect(limitedResults.filter((r) => r.counted)).toHaveLength(5);
    expect(limitedResults.filter((r) => !r.counted).every((r) => r.requests === 5)).toBe(true);
    expect(await keys().usage(key.id)).toBe(5);
  });
});
