/**
 * After-each cleanups of shared test helpers. The unit project runs a worker's test files in one
 * module graph (`isolate: false`, vitest.config.ts), so a helper module is evaluated once per
 * worker: an `afterEach` or `afterAll` it called at its top level was registered in the first
 * test file that imported it and never in the others, whose servers and temporary folders then
 * stayed until the worker ended. Helpers register here instead; `vitest-setup.ts`, run for every
 * test file, runs them all after each test (or after each file), in the order they were registered.
 */
const afterTest: Array<() => unknown> = [];
const afterFile: Array<() => unknown> = [];

export function afterEachTest(cleanup: () => unknown): void {
  afterTest.push(cleanup);
}

/** For what a helper keeps for a whole file (a test CA, say): run after the last test of every file. */
export function afterEachFile(cleanup: () => unknown): void {
  afterFile.push(cleanup);
}

export async function runAfterEachTest(): Promise<void> {
  for (const cleanup of afterTest) await cleanup();
}

export async function runAfterEachFile(): Promise<void> {
  for (const cleanup of afterFile) await cleanup();
}
