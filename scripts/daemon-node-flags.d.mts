/** The Node flags the daemon runs with (see daemon-node-flags.mjs). */
export declare const DAEMON_NODE_FLAGS: readonly string[];
