import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest (seconds measured in a full run on 2 cores, 2026-12-07, with the
 * tests' child processes on the build), longest first. Without vitest's own record of durations (a
 * fresh clone, as in CI) files run in the order they are found, which left the kill -9 suites of
 * test/reliability and test/workflow to start near the end, one worker running on alone for
 * minutes after the other ran out of files. Started first, they overlap the many short files.
 */
export const LONGEST_FILES: readonly string[] = [
  'test/reliability/killTrials.test.ts', // 248 s
  'test/workflow/fanOutKill.test.ts', // 172 s
  'test/workflow/killRecovery.test.ts', // 89 s
  'test/graph/durable/groupCommitCrash.test.ts', // 70 s
  'test/graph/durable/crashRecovery.test.ts', // 65 s
  'test/package/pack.test.ts', // 44 s
  'test/history/forkCrash.test.ts', // 44 s
  'test/graph/durable/waitCrash.test.ts', // 44 s
  'test/queue/queueRedisRestart.test.ts', // 38 s
  'test/cli/modelOption.test.ts', // 34 s
  'test/graph/durable/tooLargeEnd.test.ts', // 31 s
  'test/coordinator/waitingSpecialistDurable.test.ts', // 31 s
  'test/cli/understanding.test.ts', // 31 s
];

/** Runs {@link LONGEST_FILES} first, in that order, then the rest as vitest orders them. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FILES.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return at === -1 ? LONGEST_FILES.length : at;
    };
    // A stable sort: files outside the list keep vitest's order.
    return sorted.map((spec, i) => ({ spec, i, rank: rank(spec) })).sort((a, b) => a.rank - b.rank || a.i - b.i).map(({ spec }) => spec);
  }
}
