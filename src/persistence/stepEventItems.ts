/**
 * The engine's step events (`node.started`, `node.completed`, `edge.traversed`: three at every
 * step) as the event log stores them since format 3: a JSON list of a code and the event's
 * values, in the order of the event's fields, instead of an object repeating its keys —
 * `[1,"a",3,{"input":"go"}]` for `{"type":"node.started","nodeId":"a","step":3,"request":{"input":"go"}}`.
 * Reading one back gives the event with its fields in the same order.
 */
export const STEP_EVENT_ITEMS: Readonly<Record<number, { type: string; fields: readonly string[] }>> = {
  1: { type: 'node.started', fields: ['nodeId', 'step', 'request'] },
  2: { type: 'node.completed', fields: ['nodeId', 'step', 'result', 'durationMs', 'delta'] },
  3: { type: 'edge.traversed', fields: ['from', 'to', 'kind', 'index'] },
};

/** The code each step event type is stored under (see {@link STEP_EVENT_ITEMS}). */
export const STEP_EVENT_CODES: Readonly<Record<string, number>> = { 'node.started': 1, 'node.completed': 2, 'edge.traversed': 3 };

/** The event an item stored by code holds (its fields without the envelope), or null when the item is not one. */
export function expandStepItem(item: readonly unknown[]): Record<string, unknown> | null {
  const code = item[0];
  const spec = typeof code === 'number' ? STEP_EVENT_ITEMS[code] : undefined;
  if (spec === undefined || item.length !== spec.fields.length + 1) return null;
  const body: Record<string, unknown> = { type: spec.type };
  spec.fields.forEach((field, i) => {
    body[field] = item[i + 1];
  });
  return body;
}
