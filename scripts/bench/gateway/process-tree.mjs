// A process with the processes it forked (the daemon with PORTICO_GATEWAY_PROCESSES above 1 and
// its gateway processes), for CPU time added up over all of them. Children are found by the parent
// field of /proc/*/stat: /proc/PID/task/TID/children needs a kernel option not every kernel has.
import { readdirSync } from 'node:fs';
import { cpuUs, mainThreadCpuUs, reapedCpuUs, statFields } from '../lib.mjs';

/** The live descendants of `pid`, children first; [] off Linux. */
export function descendants(pid) {
  let names;
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const childrenOf = new Map();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    // null: the process ended since the listing.
    const fields = statFields(`/proc/${name}/stat`);
    if (fields === null || fields[0] === 'Z') continue;
    const parent = Number(fields[1]);
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), Number(name)]);
  }
  const found = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const next = childrenOf.get(queue.shift()) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/** A reading of a descendant, 0 when it ended between the listing and the reading. */
const orZero = (value) => (Number.isNaN(value) ? 0 : value);

/**
 * CPU time (µs) of `pid` and its live descendants, plus the children it has reaped: a gateway
 * process that exits between two readings still counts (its time moves to the parent's reaped
 * fields); NaN off Linux.
 */
export function treeCpuUs(pid) {
  const fields = statFields(`/proc/${pid}/stat`);
  if (fields === null) return NaN;
  return cpuUs(pid) + reapedCpuUs(fields) + descendants(pid).reduce((total, child) => total + orZero(cpuUs(child)), 0);
}

/** CPU time (µs) of the main threads of `pid` and its live descendants (a gateway process that exited is not in it); NaN off Linux. */
export const treeMainThreadCpuUs = (pid) => mainThreadCpuUs(pid) + descendants(pid).reduce((total, child) => total + orZero(mainThreadCpuUs(child)), 0);

/** Whether `pid` still runs (not ended, not a zombie waiting for its parent). */
export function running(pid) {
  const fields = statFields(`/proc/${pid}/stat`);
  return fields !== null && fields[0] !== 'Z';
}
