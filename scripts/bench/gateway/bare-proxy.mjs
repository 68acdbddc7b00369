// The gateway benchmark's reference proxy: Node's http server and one undici Pool, nothing else
// (no routing, logs, timeouts, request ids or modifiers; hop-by-hop headers dropped both ways).
// With a process count above 1, that many such processes share the port (Node's cluster): what
// a Node proxy gets from more than one core, for reference against nginx.
//   node scripts/bench/gateway/bare-proxy.mjs <port> <backend origin> [processes]
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [port, origin, processes = '1'] = process.argv.slice(2);
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);
const endToEnd = (headers) => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP.has(name)));

if (Number(processes) > 1 && cluster.isPrimary) {
  for (let i = 0; i < Number(processes); i++) cluster.fork();
  // The primary stops its workers with it.
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  });
} else {
  const pool = new Pool(origin);
  createServer(async (req, res) => {
    try {
      const body = req.method === 'GET' || req.method === 'HEAD' ? null : req;
      const answer = await pool.request({ path: req.url, method: req.method, headers: endToEnd(req.headers), body });
      res.writeHead(answer.statusCode, endToEnd(answer.headers));
      answer.body.pipe(res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(error));
    }
  }).listen(Number(port), '127.0.0.1', () => console.log(`bare proxy on 127.0.0.1:${port} -> ${origin}`));
}
