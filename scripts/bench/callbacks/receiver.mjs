// Loopback HTTPS receiver for the callbacks benchmark, in its own process: answers 200 at once
// and reports how many requests (and distinct webhook-ids) it saw when the parent asks.
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';

const [certFile, keyFile] = process.argv.slice(2);
let count = 0;
const ids = new Set();
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  req.resume();
  req.on('end', () => {
    count += 1;
    const id = req.headers['webhook-id'];
    if (id) ids.add(id);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 }).end('ok');
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'count') process.send({ count, distinct: ids.size });
  if (m === 'reset') {
    count = 0;
    ids.clear();
    process.send({ reset: true });
  }
  if (m === 'stop') server.close(() => process.exit(0));
});
