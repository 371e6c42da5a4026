import { availableParallelism } from 'node:os';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/LongestFirstSequencer.js';

// The test files run the TypeScript sources: `switchboard`, `switchboard/engine` and
// `switchboard/testing` resolve to src/ through the "switchboard-source" export condition (below).
// The processes a test starts (the CLI, fixtures killed and recovered, queue workers, examples) run
// the build in dist/, as an installed package does: globalSetup builds it when the sources changed
// since (test/support/ensureBuild.ts), and the fixtures they load import the package by name, so
// they share its one copy of the engine. Started from the sources through tsx, each of those
// processes took about three times the CPU. SWITCHBOARD_TEST_FROM_SOURCE=1 runs them from the
// sources instead (the source condition in NODE_OPTIONS, which they inherit).
const SOURCE_CONDITION = 'switchboard-source';
const inherited = (process.env.NODE_OPTIONS ?? '').replaceAll(`--conditions=${SOURCE_CONDITION}`, '').trim();
process.env.NODE_OPTIONS = process.env.SWITCHBOARD_TEST_FROM_SOURCE === '1' ? `${inherited} --conditions=${SOURCE_CONDITION}`.trim() : inherited;

// Without vite's `module` condition: externalized packages are loaded by Node, and some (such as
// @opentelemetry/api) point `module` at an ESM build with extensionless imports Node cannot load.
const CONDITIONS = [SOURCE_CONDITION, ...defaultServerConditions.filter((c) => c !== 'module')];

export default defineConfig({
  resolve: { conditions: CONDITIONS },
  ssr: { resolve: { conditions: CONDITIONS } },
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
    // Two test files at once at least (vitest's default is one fewer than the cores: one on a
    // 2-core machine). Most files spend their time waiting on what they start (child processes
    // killed and recovered, servers, PostgreSQL, Redis, a browser), not computing, and each keeps
    // to its own files, schemas, ports and servers, so they can overlap.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The longest files first (a fresh clone has no record of durations to order them by).
    sequence: { sequencer: LongestFirstSequencer },
    // The long-run test measures heap after a forced GC.
    execArgv: ['--expose-gc'],
  },
});
