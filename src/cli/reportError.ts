import { CommanderError } from 'commander';
import { GraphDefinitionError } from '../errors/GraphDefinitionError.js';
import { SwitchboardError } from '../errors/SwitchboardError.js';
import { InputError } from '../input/InputError.js';
import { UsageError } from '../errors/UsageError.js';
import { ModelChoiceError } from '../errors/ModelChoiceError.js';
import { EXIT } from './exitCodes.js';
// Type only: the schema module loads zod, which `--version` and usage errors must not.
import type { ErrorJson } from '../json/ErrorJson.js';
import { JSON_SCHEMA_VERSION } from '../json/jsonSchemaVersion.js';

/** How an error is reported: as JSON (`--json`), with its stack (`--debug`), and where to. */
export interface ErrorReportOptions {
  json: boolean;
  debug: boolean;
  /** Writes one line to stderr. */
  err: (line: string) => void;
}

/** Errors that mean the command line was wrong: a bad flag or input, a model not offered, a graphs module that does not load. */
function isUsageError(error: unknown): boolean {
  return error instanceof InputError || error instanceof UsageError || error instanceof ModelChoiceError || error instanceof GraphDefinitionError || (error instanceof CommanderError && error.exitCode !== 0);
}

/** The message on one line: a multi-line message (a zod report, a server's text) is joined. */
function oneLine(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}

/** The stack of an error and of its causes, for `--debug`. */
function stacks(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    parts.push(e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e));
    if (!(e instanceof Error)) break;
  }
  return parts.join('\ncaused by: ');
}

/**
 * Reports an error that ended a command and returns the exit code: 2 for usage errors, 1 for the
 * rest. A Switchboard error is one line, `switchboard: <message> [<code>]`; anything else is
 * `switchboard: unexpected error: …`. Under `--json` the report is an `ErrorJson` on
 * stderr (stdout stays clean); `--debug` adds the stacks. Commander has already printed its own
 * usage errors unless `--json` silenced it.
 */
export function reportError(error: unknown, options: ErrorReportOptions): number {
  if (error instanceof CommanderError && error.exitCode === 0) return EXIT.ok;
  const exitCode = isUsageError(error) ? EXIT.usage : EXIT.failed;
  let code: string;
  let message: string;
  if (error instanceof CommanderError) {
    code = 'usage';
    message = oneLine(error.message.replace(/^error: /, ''));
  } else if (error instanceof SwitchboardError) {
    code = error.code;
    message = oneLine(error.message);
  } else {
    code = 'internal';
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    message = `unexpected error: ${oneLine(text).slice(0, 300)}${options.debug ? '' : ' (run again with --debug for the stack)'}`;
  }
  if (options.json) {
    const retryable = error instanceof SwitchboardError && error.retryable;
    const body: ErrorJson = { schemaVersion: JSON_SCHEMA_VERSION, error: { code, message, ...(retryable ? { retryable } : {}), ...(options.debug ? { stack: stacks(error) } : {}) } };
    options.err(JSON.stringify(body));
    return exitCode;
  }
  if (!(error instanceof CommanderError)) options.err(`switchboard: ${message}${code === 'internal' ? '' : ` [${code}]`}`);
  if (options.debug) options.err(stacks(error));
  return exitCode;
}
