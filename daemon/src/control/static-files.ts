import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream';
import { lookupStaticFile, STATIC_METHODS, staticFileResponse, statStaticFile, type StaticFile } from '../core/static-files.js';

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
} as const;

/** Vite names built assets with a content hash: they never change under the same name. */
const HASHED_ASSET = /[.-][A-Za-z0-9_-]{8,}\.(js|css)$/;

/**
 * Serves the built web dashboard with the shared static-file server: files under `root`, and
 * index.html for any other GET so client-side routes survive a reload (the SPA fallback).
 * Paths never leave `root`; every answer carries the dashboard's security headers.
 */
export function webDashboard(root: string) {
  return async function serveWebDashboard(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    if (!STATIC_METHODS.includes(method)) {
      res.writeHead(405, { Allow: STATIC_METHODS.join(', '), 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }).end('method not allowed\n');
      return;
    }
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    const found = await lookupStaticFile(root, pathname, { slash: pathname.endsWith('/') });
    const asset: StaticFile | null = found.kind === 'file' ? found.file : null;
    const target = asset ?? (await statStaticFile(join(root, 'index.html')));
    if (!target) {
      res
        .writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS })
        .end(`The web dashboard is not built (no ${join(root, 'index.html')}). Run \`npm run build\` in the Portico checkout, then reload.\n`);
      return;
    }
    const response = staticFileResponse(target, method, req.headers);
    const hashed = asset !== null && HASHED_ASSET.test(asset.path);
    res.writeHead(response.status, { ...response.headers, 'Cache-Control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache', ...SECURITY_HEADERS });
    if (!response.body) {
      res.end();
      return;
    }
    // pipeline, not pipe: a client gone mid-download closes the file (pipe would keep its fd open),
    // and a file removed between stat and read cuts the connection (the headers are out). Either
    // is the client's or the build's business, nothing to log.
    pipeline(response.body, res, () => {});
  };
}
