/** V8's helper threads for a machine of `cores` (see daemon-node-flags.mjs). */
export declare function v8PoolSize(cores: number): number;
/** The Node flags the daemon runs with (see daemon-node-flags.mjs). */
export declare const DAEMON_NODE_FLAGS: readonly string[];
