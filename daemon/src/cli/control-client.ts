import { createTRPCClient, httpBatchLink, TRPCClientError, type TRPCClient } from '@trpc/client';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TOKEN_FILE_NAME } from '../control/auth.js';
import type { AppRouter } from '../main/app-router.js';
import { DEFAULT_CONTROL_ADDR, parseListenAddress } from '../core/settings.js';

/** How operator commands find the running daemon: flags first, then the environment, then defaults. */
export interface ControlTarget {
  url?: string | undefined;
  tokenFile?: string | undefined;
  dataDir?: string | undefined;
}

/** `http://<PORTICO_CONTROL_ADDR>`, with a wildcard listen address turned into loopback. */
export function controlUrlFromEnv(): string {
  const addr = parseListenAddress(process.env.PORTICO_CONTROL_ADDR || DEFAULT_CONTROL_ADDR, 'PORTICO_CONTROL_ADDR');
  const host = addr.host === '0.0.0.0' ? '127.0.0.1' : addr.host === '::' ? '::1' : addr.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
}

/** PORTICO_CONTROL_TOKEN, else the token file; the error says where it looked. */
export function readToken(tokenFile: string | undefined, dataDir: string | undefined): string {
  const fromEnv = process.env.PORTICO_CONTROL_TOKEN?.trim();
  if (fromEnv && !tokenFile) return fromEnv;
  const file = resolve(tokenFile ?? join(dataDir ?? process.env.PORTICO_DATA_DIR ?? 'data', TOKEN_FILE_NAME));
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'not found' : code === 'EACCES' ? 'permission denied' : String(error);
    throw new Error(`cannot read the control token from ${file}: ${why}. Start the daemon once (it creates the file), or pass --token-file / --data-dir, or set PORTICO_CONTROL_TOKEN.`);
  }
  if (!token) throw new Error(`the token file ${file} is empty`);
  return token;
}

/** A typed control API client over HTTP for one-shot operator commands. Throws with a plain message when the token cannot be read. */
export function connectControl(target: ControlTarget): { client: TRPCClient<AppRouter>; url: string } {
  const url = (target.url ?? controlUrlFromEnv()).replace(/\/+$/, '');
  const token = readToken(target.tokenFile, target.dataDir);
  const client = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${url}/trpc`, headers: { authorization: `Bearer ${token}` } })] });
  return { client, url };
}

/** What went wrong with a control API call, in words an operator can act on. */
export function describeCallError(error: unknown, url: string): string {
  if (error instanceof TRPCClientError) {
    // A refused token is a bare 401 without a tRPC body: its status is only on the raw response.
    const status = (error.data as { httpStatus?: number } | undefined)?.httpStatus ?? (error.meta as { response?: { status?: number } } | undefined)?.response?.status;
    if (status === 401 || /401|unauthori[sz]ed/i.test(error.message)) return `the daemon at ${url} refused the control token`;
    if (/fetch failed|ECONNREFUSED/i.test(error.message)) return `cannot reach the daemon at ${url} (is it running? set --url or PORTICO_CONTROL_ADDR)`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Rows as left-aligned columns separated by two spaces; the first row is the header. */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}
