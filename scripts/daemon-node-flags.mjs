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
 * --semi-space-growth-factor=4: after an idle spell V8 shrinks the young generation to its
 * minimum, and under load it grows it again by V8's factor of 2, one step each time as many
 * bytes have survived scavenges as it holds: back to 64 MiB (the largest then) took 30 s and
 * more of load, at 2-8 times the scavenges of a warm process, and with two serving processes a
 * paced p99 above the bare proxy's + 1 ms; back to 16 MiB it is two steps of 4. Four at a step brings the second 10-s turn after a minute's idle near a
 * warm one (83 scavenges against 259 with 2; docs/performance-log.md, "A twenty-second
 * machine"). Eight was tried first and also sped the first turn, but it grew the young
 * generation to its largest while the daemon started (the startup's objects survive), and a
 * fresh daemon taking eight 50-MB uploads then peaked at 245-258 MB RSS against the upload
 * test's bound of 250 (167-225 with 4, 172-210 with 2; all with 64 MiB semi-spaces). The most
 * it grows to is the first flag's.
 */
export const DAEMON_NODE_FLAGS = ['--max-semi-space-size=16', `--v8-pool-size=${v8PoolSize(availableParallelism())}`, '--no-allocation-site-pretenuring', '--semi-space-growth-factor=4'];
