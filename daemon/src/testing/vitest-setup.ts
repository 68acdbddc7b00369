import { afterEach } from 'vitest';
import { runAfterEachTest } from './after-each-test.js';

// Every test file of the unit project: the shared helpers' cleanups after each of its tests (after-each-test.ts).
afterEach(runAfterEachTest);
