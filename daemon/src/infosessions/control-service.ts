import type { ApiKeys } from './api-keys.js';
import type { ApiKeySummary, CreatedApiKey, InfosessionsSourceStatus, SessionPage } from './control-types.js';
import { querySessions, type SessionQuery } from './session-query.js';
import type { InfosessionsSource } from './source.js';

/** What the control API reaches for infosessions (set by the area when the mode runs it). */
export interface InfosessionsControl {
  list(query: SessionQuery): SessionPage;
  source(): InfosessionsSourceStatus;
  /** Reads both files again now (as a save would). */
  reload(): Promise<InfosessionsSourceStatus>;
}

/** What the control API reaches for API keys. */
export interface KeysControl {
  list(): Promise<ApiKeySummary[]>;
  create(input: { name: string; monthlyLimit?: number | null | undefined }): Promise<CreatedApiKey>;
  ban(id: string): Promise<ApiKeySummary>;
  unban(id: string): Promise<ApiKeySummary>;
  revoke(id: string): Promise<ApiKeySummary>;
}

export function infosessionsControl(source: InfosessionsSource): InfosessionsControl {
  return {
    list: (query) => querySessions(source.snapshot.entries, query),
    source: () => source.status(),
    reload: async () => {
      await source.load();
      return source.status();
    },
  };
}

/** Key changes are announced so consoles refetch; the event never carries the key itself. */
export function keysControl(keys: ApiKeys, announce: (message: string) => void): KeysControl {
  return {
    list: () => keys.list(),
    async create(input) {
      const created = await keys.create(input);
      announce(`API key ${created.key.id} (${created.key.name}) created`);
      return created;
    },
    async ban(id) {
      const key = await keys.ban(id);
      announce(`API key ${id} (${key.name}) banned`);
      return key;
    },
    async unban(id) {
      const key = await keys.unban(id);
      announce(`API key ${id} (${key.name}) unbanned`);
      return key;
    },
    async revoke(id) {
      const key = await keys.revoke(id);
      announce(`API key ${id} (${key.name}) revoked`);
      return key;
    },
  };
}
