/**
 * Crash points for the fault tests: when PORTICO_FAULT_POINT names this point, the process
 * kills itself with SIGKILL right here, as a power cut would. Unset in production: a no-op.
 */
export function faultPoint(name: string): void {
  if (process.env.PORTICO_FAULT_POINT === name) process.kill(process.pid, 'SIGKILL');
}
