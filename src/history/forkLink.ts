/** The key under which run options carry a fork's parent link (read by the stored run's first leg; see `forkRun`). */
export const FORK_OF = Symbol.for('switchboard.forkOf');
