import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['daemon/src/**/*.test.ts', 'console-tui/src/**/*.test.{ts,tsx}', 'console-web/src/**/*.test.{ts,tsx}', 'scripts/**/*.test.ts'],
          testTimeout: 20_000,
          hookTimeout: 30_000,
          // CI has 2 cores running everything at once; polls wait longer there, never shorter.
          expect: { poll: { timeout: 10_000, interval: 50 } },
          // Ink decides at import whether it runs in CI and then draws only the last frame; runTui
          // shields the real console from that, but test files load Ink before it can. CI still
          // sees every test: this only stops Ink from switching to its CI output.
          env: { CI: 'false', CONTINUOUS_INTEGRATION: 'false' },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          testTimeout: 90_000,
          hookTimeout: 90_000,
          expect: { poll: { timeout: 20_000, interval: 100 } },
          fileParallelism: false,
        },
      },
    ],
  },
});
