import { systemClock, type Clock } from './RunOptions.js';

/** The time of one event: the clock is read once, on the first request, so the light path can skip it. */
export class EventTime {
  #clock: Clock = systemClock;
  #at = 0;
  #read = false;

  /** Starts a new event's time: `at` when the caller already read the clock for it, else read on request. */
  begin(clock: Clock, at?: number): void {
    this.#clock = clock;
    if (at === undefined) {
      this.#read = false;
    } else {
      this.#at = at;
      this.#read = true;
    }
  }

  now(): number {
    if (!this.#read) {
      this.#at = this.#clock.now();
      this.#read = true;
    }
    return this.#at;
  }
}
