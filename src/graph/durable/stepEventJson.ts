import { STEP_EVENT_CODES, STEP_EVENT_ITEMS } from '../../persistence/stepEventItems.js';
import { SHARED_VALUE_MIN } from '../../persistence/storedJson.js';
import type { HopEvent } from '../../trace/HopListener.js';
import { cleanPlainJson, stringNeedsScrub } from '../../trace/redact.js';

/**
 * The fields of the step events the engine makes at every step, in the order it writes them (see
 * `ReusedEvents` and `machineActions`), as the event log stores them (`STEP_EVENT_ITEMS`): an event
 * of one of these types with exactly these own keys, in this order, is encoded by
 * {@link stepEventJson} piece by piece.
 */
const SHAPES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.values(STEP_EVENT_ITEMS).map(({ type, fields }) => [type, ['type', ...fields]]),
);
const STARTED = STEP_EVENT_CODES['node.started'];
const COMPLETED = STEP_EVENT_CODES['node.completed'];
const EDGE = STEP_EVENT_CODES['edge.traversed'];

/** Strings a run's step events repeat (node ids, edge kinds) with their JSON text, or null for one a redaction would change. */
export type QuotedStrings = Map<string, string | null>;
const QUOTED_MAX = 1024;

function hasShape(event: HopEvent, keys: readonly string[]): boolean {
  if (Object.getPrototypeOf(event) !== Object.prototype) return false;
  let i = 0;
  for (const key in event) {
    if (key !== keys[i] || !Object.hasOwn(event, key)) return false;
    i += 1;
  }
  return i === keys.length;
}

/** The JSON of a string, or null when a redaction would change it. */
function quoted(value: unknown, secrets: readonly string[], strings: QuotedStrings): string | null {
  if (typeof value !== 'string') return null;
  let text = strings.get(value);
  if (text === undefined) {
    text = stringNeedsScrub(value, secrets) ? null : JSON.stringify(value);
    if (strings.size >= QUOTED_MAX) strings.clear();
    strings.set(value, text);
  }
  return text;
}

/** The JSON of a finite number (`String` writes a finite number as JSON does, -0 as 0), else null. */
const numeral = (value: unknown): string | null => (typeof value === 'number' && Number.isFinite(value) ? String(value) : null);

/**
 * The JSON of a value the store keeps as plain JSON (no string long enough for its value table,
 * see `encodePlainStored`) with nothing to redact, else null. The event's text is measured against
 * the limit as a whole.
 */
function plain(value: unknown, secrets: readonly string[]): string | null {
  return value === null ? 'null' : cleanPlainJson(value, secrets, SHARED_VALUE_MIN);
}

/**
 * One of the engine's step events (`node.started`, `node.completed`, `edge.traversed`) as the event
 * log stores it, its item `[code, …values]` (see `STEP_EVENT_ITEMS`), built from its parts: the
 * frame written as text, the node ids and kinds quoted once per run, and only the values a node
 * made (request, result, delta) checked for plain JSON and redaction, then serialized. Read back,
 * it is the event `JSON.parse(JSON.stringify(event))` gives when nothing in it needs redacting;
 * null for any other event, or when something does (or a value is not plain JSON, or is too
 * large), for which the caller takes the general path.
 */
export function stepEventJson(event: HopEvent, secrets: readonly string[], limit: number, strings: QuotedStrings): string | null {
  const shape = SHAPES[event.type];
  if (shape === undefined || !hasShape(event, shape)) return null;
  const e = event as unknown as Record<string, unknown>;
  let text: string;
  try {
    if (event.type === 'edge.traversed') {
      const from = quoted(e['from'], secrets, strings);
      const to = quoted(e['to'], secrets, strings);
      const kind = quoted(e['kind'], secrets, strings);
      const index = numeral(e['index']);
      if (from === null || to === null || kind === null || index === null) return null;
      text = `[${EDGE},${from},${to},${kind},${index}]`;
    } else {
      const nodeId = quoted(e['nodeId'], secrets, strings);
      const step = numeral(e['step']);
      if (nodeId === null || step === null) return null;
      if (event.type === 'node.started') {
        const request = plain(e['request'], secrets);
        if (request === null) return null;
        text = `[${STARTED},${nodeId},${step},${request}]`;
      } else {
        const durationMs = numeral(e['durationMs']);
        const result = plain(e['result'], secrets);
        const delta = result === null || durationMs === null ? null : plain(e['delta'], secrets);
        if (delta === null) return null;
        text = `[${COMPLETED},${nodeId},${step},${result},${durationMs},${delta}]`;
      }
    }
  } catch {
    // A value that cannot be read, is not JSON or is too large: the general path names it.
    return null;
  }
  // A string is at most 3 bytes per UTF-16 unit: a text that could be over the limit takes the general path, which measures it.
  return text.length * 3 > limit ? null : text;
}
