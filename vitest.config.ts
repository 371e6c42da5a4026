import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Generous bounds: no test waits on time, so these only end a hang, and a busy 2-core machine
    // (CLI children, a browser, PostgreSQL) can make a correct test slow.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // A run that executes no test is a failure.
    passWithNoTests: false,
    // A real PostgreSQL for every run: the given SWITCHBOARD_TEST_DATABASE_URL or an embedded one.
    globalSetup: ['test/support/globalSetup.ts'],
    pool: 'forks',
    // The long-run test measures heap after a forced GC.
    execArgv: ['--expose-gc'],
  },
});
