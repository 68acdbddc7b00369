import type { DaemonHandle } from './harness.js';

/** Calls the ingest API of a running daemon as tenant `acme`, workspace `main`; the body is parsed JSON. */
export async function tenantCall(daemon: DaemonHandle, path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const headers = new Headers(init.headers);
  headers.set('X-Tenant-Id', 'acme');
  headers.set('X-Workspace-Id', 'main');
  const res = await fetch(`${daemon.servicesUrl}${path}`, { ...init, headers });
  return { status: res.status, body: (await res.json()) as any };
}
