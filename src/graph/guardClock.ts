import { systemClock, type Clock } from './RunOptions.js';

/**
 * A checked clock: the first time `now()` throws or returns something other than a finite number,
 * `onFail` is told and the system clock is used from then on.
 */
export function guardClock(clock: Clock, onFail: (thrown: unknown, problem?: string) => void): Clock {
  let failed = false;
  const fallBack = (thrown: unknown, problem?: string): number => {
    failed = true;
    onFail(thrown, problem);
    return systemClock.now();
  };
  return {
    now: () => {
      if (failed) return systemClock.now();
      let time: unknown;
      try {
        time = clock.now();
      } catch (error) {
        return fallBack(error);
      }
      if (typeof time === 'number' && Number.isFinite(time)) return time;
      return fallBack(time, `clock.now() returned ${typeof time === 'number' ? String(time) : `a ${typeof time}`}`);
    },
  };
}
