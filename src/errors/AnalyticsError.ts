import { SwitchboardError } from './SwitchboardError.js';

/** Codes of {@link AnalyticsError}. */
export type AnalyticsErrorCode = 'invalid_transition_record' | 'chain_not_absorbing' | 'invalid_recorder_options' | 'unreadable_file';

/**
 * Transition analytics were given something they cannot use: a record that is not a
 * `TransitionRecord` (`invalid_transition_record`, with where it was), a linear system with no
 * solution (`chain_not_absorbing`: some states can never reach an end), options of a transition
 * recorder or tracker that are not what it takes (`invalid_recorder_options`, naming the option),
 * or a transitions file that cannot be read (`unreadable_file`).
 */
export class AnalyticsError extends SwitchboardError {
  override readonly name = 'AnalyticsError';

  constructor(message: string, code: AnalyticsErrorCode) {
    super(message, { code, fault: 'user', retryable: false });
  }
}
