// Loopback HTTPS receiver for the callbacks benchmark: a cluster of RECEIVERS processes sharing one
// port (the primary hands each new connection to the next process), each answering 200 at once,
// so the receiver is not what limits a run. The parent asks the primary for the requests (and
// distinct webhook-ids) seen by all processes together, and for their CPU time so far.
//   node receiver.mjs CERT KEY [PROCESSES]
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [certFile, keyFile, processesArg = '1'] = process.argv.slice(2);

if (cluster.isPrimary) {
  const processes = Math.max(1, Number(processesArg));
  // Round robin (the default off Windows): keep-alive clients open few connections, and the
  // kernel's choice under `exclusive: false` sharing can leave one process with most of them.
  cluster.schedulingPolicy = cluster.SCHED_RR;
  cluster.setupPrimary({ args: [certFile, keyFile] });
  const workers = Array.from({ length: processes }, () => cluster.fork());
  const ask = (message) => Promise.all(workers.map((w) => new Promise((resolve) => {
    const onMessage = (m) => {
      if (m?.answer !== message) return;
      w.off('message', onMessage);
      resolve(m);
    };
    w.on('message', onMessage);
    w.send(message);
  })));
  // The benchmark ended (or failed) without saying stop: go with it.
  process.on('disconnect', () => {
    for (const w of workers) w.kill();
    process.exit(0);
  });
  const ports = await Promise.all(workers.map((w) => new Promise((resolve) => w.once('listening', (address) => resolve(address.port)))));
  process.send({ port: ports[0], processes });
  process.on('message', async (m) => {
    if (m === 'count') {
      const answers = await ask('count');
      const ids = new Set(answers.flatMap((a) => a.ids));
      process.send({ count: answers.reduce((n, a) => n + a.count, 0), distinct: ids.size, connections: answers.reduce((n, a) => n + a.connections, 0), perProcess: answers.map((a) => a.count) });
    }
    if (m === 'reset') {
      await ask('reset');
      process.send({ reset: true });
    }
    if (m === 'cpu') {
      const answers = await ask('cpu');
      process.send({ cpuUs: answers.reduce((n, a) => n + a.cpuUs, 0) });
    }
    if (m === 'stop') {
      for (const w of workers) w.kill();
      process.exit(0);
    }
  });
} else {
  let count = 0;
  let connections = 0;
  let ids = [];
  const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      const id = req.headers['webhook-id'];
      if (id) ids.push(id);
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 }).end('ok');
    });
  });
  server.on('secureConnection', () => (connections += 1));
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1');
  process.on('message', (m) => {
    if (m === 'count') process.send({ answer: 'count', count, connections, ids });
    if (m === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send({ answer: 'cpu', cpuUs: user + system });
    }
    if (m === 'reset') {
      count = 0;
      connections = 0;
      ids = [];
      process.send({ answer: 'reset' });
    }
  });
}
