// The Node flags the daemon runs with: `npm start`, scripts/portico.service (keep its ExecStart
// in step) and the gateway benchmarks, which measure the daemon as it is run.
//
// --max-semi-space-size=64: a young generation of 64 MiB semi-spaces instead of V8's 16 MiB.
// A proxy holds each request's objects while the backend answers; with small semi-spaces a
// scavenge comes every few milliseconds and copies (then promotes) everything in flight. Under
// load this cut the gateway's garbage collection from 8-11 to about 2.5 µs a request
// (docs/gateway.md, "Performance"); it costs up to ~150 MiB more memory (3 x 48 MiB), used only under
// allocation pressure.
export const DAEMON_NODE_FLAGS = ['--max-semi-space-size=64'];
