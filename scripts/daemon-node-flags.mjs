// The Node flags the daemon runs with: `npm start`, scripts/portico.service (keep its ExecStart
// in step), the e2e tests and the benchmarks, which measure the daemon as it is run.
import { availableParallelism } from 'node:os';

/**
 * V8's helper threads (parallel scavenges, concurrent marking, background compiles) for a
 * machine of `cores`: one fewer than the cores, at least 1, at most Node's default of 4.
 * Node starts 4 whatever the machine: on 2 cores the helpers of a parallel scavenge outnumber
 * the cores, wait on each other while descheduled and take the main thread's core. With 1,000
 * CDS streams open, a 10,000-backend save spent 742-863 ms of CPU (main thread 330-550) with 4
 * and 334-417 ms (main thread 180-370) with 1; the publish went from 531-700 ms to 234-483
 * (docs/cds.md). The gateway's CPU a request did not move beyond the spread.
 */
export const v8PoolSize = (cores) => Math.min(4, Math.max(1, Math.floor(cores) - 1));

/**
 * --max-semi-space-size=16: a young generation of at most 16 MiB semi-spaces, V8's own largest
 * for 64-bit machines, written out so a Node release that changes V8's default does not change
 * the daemon. It was 64 from 2026-11-24: a proxy holds each request's objects while the backend
 * answers, and in the pipeline of then a scavenge of small semi-spaces copied (and promoted)
 * everything in flight, 8-11 µs of garbage collection a request against 2.5 with 64. Since
 * nothing old points at a finished request any more, a scavenge keeps 40-540 KB; on a
 * twenty-third machine (docs/performance-log.md) 16 cost the gateway 3-9 % less CPU a request
 * than 64 in three side-by-side runs (compare.mjs: 1.289 against 1.369 the bare proxy's at
 * saturation over 12 rounds), its paced p99 and the 10,000-backend CDS saves within the spread,
 * and a daemon held 145-150 MB of RSS after 8 s of saturated load instead of 235-238.
 * --v8-pool-size: see v8PoolSize.
 * --no-allocation-site-pretenuring: V8 tracks how many objects of each object and array literal
 * outlive a collection, and from 85 % on allocates that literal's objects straight in the old
 * generation, for good. A mark-compact that ran under load now and then found 93-100 % of a
 * per-request literal's recent objects alive, and that literal was switched to the old
 * generation: each request's objects then hung from an old object that died with the request,
 * scavenges kept and promoted them (840-900 KB each against 5-165 KB), and the proxy ran 5-11
 * mark-compacts every 10 s with its p99 at twice the bare proxy's, until it restarted
 * (docs/performance-log.md, "A twentieth machine": 5 runs of 32 there). With the flag: none of
 * 25; saves and CDS loads of 10,000 backends took no longer.
 * --min-semi-space-size=16: the young generation stays at its largest, 16 MiB semi-spaces. After
 * 8 s with no load V8's memory reducer shrinks it, and when load came back the daemon ran 1.5-2.7
 * times the scavenges of a warm one and a mark-compact in the next 10 s, its own request times
 * over 4 ms for 229-1,873 requests in the first second against 41-249 with the flag, and the
 * benchmark's paced p99 after each idle turn 9.3-15.7 ms against 3.5-8.1
 * (docs/performance-log.md, "A thirty-second machine"). It replaced --semi-space-growth-factor=4 (2026-11-30), which grew a
 * shrunk young generation back in fewer steps but still after the requests that paid for it.
 * RSS was no higher: 124-149 MB after start against 133-165, eight 50-MB uploads to a fresh
 * daemon peaked at 163-188 MB against 173-210, and a daemon of config/portico.hcl at rest after
 * 10 s of load held 145-147 MB against 149.
 */
export const DAEMON_NODE_FLAGS = ['--max-semi-space-size=16', `--v8-pool-size=${v8PoolSize(availableParallelism())}`, '--no-allocation-site-pretenuring', '--min-semi-space-size=16'];
