import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A run that executes no test is a failure.
    passWithNoTests: false,
    // A real PostgreSQL for every run: the given SWITCHBOARD_TEST_DATABASE_URL or an embedded one.
    globalSetup: ['test/support/globalSetup.ts'],
    pool: 'forks',
    // The long-run test measures heap after a forced GC.
    execArgv: ['--expose-gc'],
  },
});
