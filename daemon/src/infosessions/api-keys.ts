import { createHash, randomBytes } from 'node:crypto';
import { PorticoError } from '../core/errors.js';
import type { Store } from '../store/types.js';
import type { ApiKeyState, ApiKeySummary, CreatedApiKey } from './control-types.js';

/** What the endpoint needs to know about a presented key. */
export interface KeyIdentity {
  id: string;
  state: ApiKeyState;
  monthlyLimit: number | null;
}

/** The result of trying to count one call: counted, or refused because the month's limit is reached. */
export type CountResult = { counted: true; requests: number } | { counted: false; requests: number };

interface KeyRow {
  id: string;
  name: string;
  key_prefix: string;
  state: ApiKeyState;
  monthly_limit: number | null;
  created_at: number;
  state_changed_at: number | null;
  last_used_at: number | null;
  requests: number | null;
}

export class ApiKeyError extends PorticoError {
  override name = 'ApiKeyError';
  constructor(code: string, message: string) {
    super(code, message, { category: code === 'key_not_found' ? 'not_found' : 'conflict' });
  }
}

/** sha256 hex of a key: all the store keeps of it. */
export function hashKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Calendar month (UTC) a call counts in: `2026-11`. */
export function usageMonth(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 7);
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(Number(ms)).toISOString());

/**
 * API keys of the infosessions service and their monthly usage. A key is 32 hex characters (as
 * the real API's were); the store keeps its sha256 and its first 4 characters for display.
 */
export class ApiKeys {
  constructor(
    private readonly store: () => Store,
    private readonly now: () => number = Date.now,
  ) {}

  async create(input: { name: string; monthlyLimit?: number | null | undefined }): Promise<CreatedApiKey> {
    const secret = randomBytes(16).toString('hex');
    const id = `key_${randomBytes(5).toString('hex')}`;
    const at = this.now();
    await this.store().run(
      'INSERT INTO infosessions_api_keys (id, name, key_hash, key_prefix, state, monthly_limit, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [id, input.name, hashKey(secret), secret.slice(0, 4), 'active', input.monthlyLimit ?? null, at],
    );
    return { key: await this.get(id), secret };
  }

  async list(): Promise<ApiKeySummary[]> {
    const rows = await this.store().all<KeyRow>(
      `SELECT k.id, k.name, k.key_prefix, k.state, k.monthly_limit, k.created_at, k.state_changed_at, k.last_used_at, u.requests
       FROM infosessions_api_keys k LEFT JOIN infosessions_key_usage u ON u.key_id = k.id AND u.month = ?
       ORDER BY k.created_at, k.id`,
      [usageMonth(this.now())],
    );
    return rows.map(summary);
  }

  async get(id: string): Promise<ApiKeySummary> {
    const row = await this.store().get<KeyRow>(
      `SELECT k.id, k.name, k.key_prefix, k.state, k.monthly_limit, k.created_at, k.state_changed_at, k.last_used_at, u.requests
       FROM infosessions_api_keys k LEFT JOIN infosessions_key_usage u ON u.key_id = k.id AND u.month = ?
       WHERE k.id = ?`,
      [usageMonth(this.now()), id],
    );
    if (!row) throw new ApiKeyError('key_not_found', `no API key with id ${id}`);
    return summary(row);
  }

  /** Bans an active key (403 from then on). Banning a banned key is a no-op; a revoked key stays revoked. */
  ban(id: string): Promise<ApiKeySummary> {
    return this.#transition(id, 'banned', ['active', 'banned']);
  }

  unban(id: string): Promise<ApiKeySummary> {
    return this.#transition(id, 'active', ['banned', 'active']);
  }

  /** Revokes a key for good (401 from then on, as an unknown key). */
  revoke(id: string): Promise<ApiKeySummary> {
    return this.#transition(id, 'revoked', ['active', 'banned', 'revoked']);
  }

  async #transition(id: string, to: ApiKeyState, from: readonly ApiKeyState[]): Promise<ApiKeySummary> {
    const current = await this.get(id);
    if (!from.includes(current.state)) {
      throw new ApiKeyError('key_state', `key ${id} is ${current.state}; it cannot become ${to}`);
    }
    if (current.state !== to) {
      await this.store().run('UPDATE infosessions_api_keys SET state = ?, state_changed_at = ? WHERE id = ? AND state = ?', [to, this.now(), id, current.state]);
    }
    return this.get(id);
  }

  /** The key a caller presented, or null when no key has that value. */
  async identify(secret: string): Promise<KeyIdentity | null> {
    const row = await this.store().get<{ id: string; state: ApiKeyState; monthly_limit: number | null }>(
      'SELECT id, state, monthly_limit FROM infosessions_api_keys WHERE key_hash = ?',
      [hashKey(secret)],
    );
    return row ? { id: row.id, state: row.state, monthlyLimit: row.monthly_limit === null ? null : Number(row.monthly_limit) } : null;
  }

  /** Calls counted for the key this month. */
  async usage(id: string): Promise<number> {
    const row = await this.store().get<{ requests: number }>('SELECT requests FROM infosessions_key_usage WHERE key_id = ? AND month = ?', [id, usageMonth(this.now())]);
    return row ? Number(row.requests) : 0;
  }

  /**
   * Counts one call, unless the month's limit is reached. One statement, so concurrent calls
   * (other requests, other processes) never lose or over-grant a count.
   */
  async count(key: KeyIdentity): Promise<CountResult> {
    const at = this.now();
    if (key.monthlyLimit !== null && key.monthlyLimit <= 0) return { counted: false, requests: await this.usage(key.id) };
    const row = await this.store().get<{ requests: number }>(
      `INSERT INTO infosessions_key_usage (key_id, month, requests) VALUES (?, ?, 1)
       ON CONFLICT (key_id, month) DO UPDATE SET requests = infosessions_key_usage.requests + 1
       WHERE infosessions_key_usage.requests < ?
       RETURNING requests`,
      [key.id, usageMonth(at), key.monthlyLimit ?? Number.MAX_SAFE_INTEGER],
    );
    await this.touch(key.id);
    if (!row) return { counted: false, requests: await this.usage(key.id) };
    return { counted: true, requests: Number(row.requests) };
  }

  /** Records that the key was used now (also for calls that are not counted). */
  async touch(id: string): Promise<void> {
    await this.store().run('UPDATE infosessions_api_keys SET last_used_at = ? WHERE id = ?', [this.now(), id]);
  }
}

function summary(row: KeyRow): ApiKeySummary {
  return {
    id: row.id,
    name: row.name,
    masked: `${row.key_prefix}***`,
    state: row.state,
    monthlyLimit: row.monthly_limit === null ? null : Number(row.monthly_limit),
    requestsThisMonth: row.requests === null ? 0 : Number(row.requests),
    createdAt: iso(row.created_at) ?? '',
    lastUsedAt: iso(row.last_used_at),
    stateChangedAt: iso(row.state_changed_at),
  };
}
