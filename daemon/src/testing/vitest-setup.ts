import { afterAll, afterEach } from 'vitest';
import { runAfterEachFile, runAfterEachTest } from './after-each-test.js';

// Every test file: the shared helpers' cleanups after each of its tests and after the file (after-each-test.ts).
afterEach(runAfterEachTest);
afterAll(runAfterEachFile);
