import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['daemon/src/**/*.test.ts', 'console-web/src/**/*.test.{ts,tsx}', 'scripts/**/*.test.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
          // CI has 2 cores running everything at once; polls wait longer there, never shorter.
          expect: { poll: { timeout: 10_000, interval: 50 } },
          // The files of a worker share one module graph instead of importing it again for every
          // file: importing took about 2 s of each file's time, the tests themselves half a second
          // (410 s → about 160 s for all unit tests on 2 cores). Each test starts and closes what it
          // uses (servers, stores, timers); module caches hold nothing a test can see.
          isolate: false,
          // Run for every test file (module-level hooks of shared helpers would be registered in a
          // worker's first file only): the helpers' after-each cleanups (daemon/src/testing/after-each-test.ts).
          setupFiles: ['daemon/src/testing/vitest-setup.ts'],
        },
      },
      {
        test: {
          // The terminal console's tests, each file in a fresh process: Ink and its colour support
          // decide at import (CI, NO_COLOR, the terminal), and some tests change those on purpose.
          name: 'unit-tui',
          include: ['console-tui/src/**/*.test.{ts,tsx}'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
          expect: { poll: { timeout: 10_000, interval: 50 } },
          // Ink decides at import whether it runs in CI and then draws only the last frame; runTui
          // shields the real console from that, but test files load Ink before it can. CI still
          // sees every test: this only stops Ink from switching to its CI output.
          env: { CI: 'false', CONTINUOUS_INTEGRATION: 'false' },
          // Its tests use the daemon's test helpers too (config files, CDS fixtures, stores), whose
          // after-each cleanups only this setup file runs.
          setupFiles: ['daemon/src/testing/vitest-setup.ts'],
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          testTimeout: 90_000,
          hookTimeout: 90_000,
          expect: { poll: { timeout: 20_000, interval: 100 } },
          // Two files at a time: each test starts its own daemons on free ports with their own data
          // folders, tmux servers and PostgreSQL schemas, and mostly waits on them; on CI's 2 cores this
          // took the e2e run from about 550 s to 370 s (README).
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
    ],
  },
});
