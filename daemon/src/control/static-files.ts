import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
} as const;

/**
 * Serves the built web dashboard: files under `root`, and index.html for any other GET so
 * client-side routes survive a reload. Paths never leave `root`.
 */
export function webDashboard(root: string) {
  return async function serveWebDashboard(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    const pathname = decodeSafely(new URL(req.url ?? '/', 'http://x').pathname);
    const candidate = pathname === null ? null : normalize(join(root, pathname));
    const inside = candidate !== null && (candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep));
    const file = inside ? await regularFile(candidate) : null;
    const target = file ?? (await regularFile(join(root, 'index.html')));
    if (!target) {
      res
        .writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS })
        .end(`The web dashboard is not built (no ${join(root, 'index.html')}). Run \`npm run build\` in the Portico checkout, then reload.\n`);
      return;
    }
    const hashedAsset = file !== null && /[.-][A-Za-z0-9_-]{8,}\.(js|css)$/.test(target);
    res.writeHead(200, {
      'Content-Type': TYPES[extname(target)] ?? 'application/octet-stream',
      'Cache-Control': hashedAsset ? 'public, max-age=31536000, immutable' : 'no-cache',
      ...SECURITY_HEADERS,
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(target).pipe(res);
  };
}

function decodeSafely(path: string): string | null {
  try {
    const decoded = decodeURIComponent(path);
    return decoded.includes('\0') ? null : decoded;
  } catch {
    return null;
  }
}

async function regularFile(path: string): Promise<string | null> {
  try {
    return (await stat(path)).isFile() ? path : null;
  } catch {
    return null;
  }
}
