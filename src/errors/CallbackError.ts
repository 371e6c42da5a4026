import { SwitchboardError, describeThrown } from './SwitchboardError.js';

/**
 * The callbacks that observe a run rather than steer it. One that throws or rejects is detached
 * (or, for a clock, replaced by the system clock) and the run goes on; the failure is reported as
 * a `callback.failed` event and in `run.callbackErrors`.
 */
export type CallbackKind = 'recorder' | 'onEvent' | 'inspect' | 'clock' | 'reason';

const FIX: Record<CallbackKind, string> = {
  recorder: 'a recorder must not throw or reject; catch errors inside record()',
  onEvent: 'RunOptions.onEvent must not throw or reject; catch errors inside the listener',
  inspect: 'the inspect observer must not throw or reject; catch errors inside it',
  clock: 'clock.now() must return a finite number of epoch milliseconds; the system clock is used instead',
  reason: "a human node's reason function must return a string synchronously",
};

/**
 * An observer the caller passed to a run (a recorder, `onEvent`, `inspect`, the clock, a human
 * node's reason) threw, rejected or returned something unusable. Code `callback_failed`; `cause`
 * is what it threw.
 */
export class CallbackError extends SwitchboardError {
  override readonly name = 'CallbackError';
  /** Which callback failed. */
  readonly callback: CallbackKind;

  constructor(callback: CallbackKind, thrown: unknown, problem?: string) {
    super(`${callback} failed: ${problem ?? describeThrown(thrown)}; ${FIX[callback]}`, { code: 'callback_failed', fault: 'user', cause: thrown });
    this.callback = callback;
  }
}
