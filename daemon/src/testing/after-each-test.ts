/**
 * After-each cleanups of shared test helpers. The unit project runs a worker's test files in one
 * module graph (`isolate: false`, vitest.config.ts), so a helper module is evaluated once per
 * worker: an `afterEach` it called at its top level was registered in the first test file that
 * imported it and never in the others, whose servers and temporary folders then stayed until the
 * worker ended. Helpers register here instead; `vitest-setup.ts`, run for every test file,
 * runs them all after each test, in the order they were registered.
 */
const cleanups: Array<() => unknown> = [];

export function afterEachTest(cleanup: () => unknown): void {
  cleanups.push(cleanup);
}

export async function runAfterEachTest(): Promise<void> {
  for (const cleanup of cleanups) await cleanup();
}
