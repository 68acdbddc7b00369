// One load process of the callbacks benchmark's ceiling: POSTs REQUESTS callback-shaped requests
// (the worker's headers, a job's JSON body) to URL over keep-alive connections, CONCURRENCY in
// flight, then reports to the parent when it started and ended (µs of the monotonic clock) and
// the CPU time it used. WARMUP requests before (JIT, connections) are not measured.
// With `raw`, each request goes through undici's dispatcher with a handler that only waits for
// the end (as the callback worker's requests do): no response object or body stream.
//   node load.mjs URL CA_FILE REQUESTS CONCURRENCY WARMUP [raw]
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const [url, caFile, requestsArg, concurrencyArg, warmupArg = '0', mode = 'request'] = process.argv.slice(2);
const RAW = mode === 'raw';
const target = new URL(url);
const REQUESTS = Number(requestsArg);
const CONCURRENCY = Number(concurrencyArg);
const agent = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') }, connections: CONCURRENCY });
const job = { ingest_job_id: randomUUID(), tenant_id: 't1', workspace_id: 'w1', dataset_id: randomUUID(), table_id: null, file_id: null, snapshot_id: null, job_kind: 'DESCRIBE_PASS', status: 'SUCCEEDED', attempts: 1, request_json: {}, result_json: { n: 1 }, error_json: null, created_at: new Date().toISOString(), updated_at: new Date().toISOString() };
const body = JSON.stringify(job);
const headers = {
  'content-type': 'application/json',
  'user-agent': 'service-callback/26',
  'x-service-event': 'ingest_job.succeeded',
  'x-service-job-id': job.ingest_job_id,
  'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
  'x-service-signature': `sha256=${'0'.repeat(64)}`,
  'webhook-signature': `v1,${'A'.repeat(43)}=`,
};

await run(Math.max(CONCURRENCY, Number(warmupArg)));
process.send({ ready: true });
await new Promise((resolve) => process.once('message', resolve));
const cpu = process.cpuUsage();
const startedAt = Number(process.hrtime.bigint() / 1000n);
await run(REQUESTS);
const { user, system } = process.cpuUsage(cpu);
process.send({ startedAt, endedAt: Number(process.hrtime.bigint() / 1000n), cpuUs: user + system });
await agent.close();

/** `count` requests, CONCURRENCY at a time. */
async function run(count) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        next += 1;
        await post();
      }
    }),
  );
}

async function post() {
  if (RAW) return postRaw();
  const res = await request(url, { method: 'POST', dispatcher: agent, headers: { ...headers, 'webhook-id': randomUUID() }, body });
  await res.body.dump();
}

function postRaw() {
  return new Promise((resolve, reject) => {
    agent.dispatch(
      { origin: target.origin, path: target.pathname, method: 'POST', headers: { ...headers, 'webhook-id': randomUUID() }, body },
      {
        onConnect() {},
        onHeaders: () => true,
        onData: () => true,
        onComplete: () => resolve(),
        onError: reject,
      },
    );
  });
}
