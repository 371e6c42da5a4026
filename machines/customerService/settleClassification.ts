import type { Classification } from './Classification.js';
import { classifyOffline } from './classifyOffline.js';
import { extractEntities } from './understanding/extractEntities.js';
import { readOrderIds } from './understanding/readOrderId.js';

/**
 * Makes any classifier's answer safe to route on: a `multi` answer gets its tasks (its own when it
 * gave two or more, else the offline split) or, when the message cannot be split, becomes the
 * strongest single intent — so `multi` never runs with no task. An order answer for a message that
 * names several orders becomes one order task per order. Entities the classifier missed are
 * filled in from the message.
 */
export function settleClassification(classification: Classification, text: string, now: number): Classification {
  const { entities } = extractEntities(text, { now });
  const settled: Classification = { ...entities, ...classification };
  if (settled.route === 'tool' && new Set(readOrderIds(text).map((s) => s.value)).size >= 2) {
    // Several orders named: one order task each, so none is answered for silently.
    const perOrder = (classifyOffline(text, now).tasks ?? []).filter((t) => t.kind === 'tool');
    if (perOrder.length >= 2) return { ...settled, route: 'multi', tasks: perOrder, reason: 'the message names several orders: one order task each' };
  }
  if (settled.route !== 'multi') return settled;
  if ((settled.tasks?.length ?? 0) >= 2) return settled;
  const offline = classifyOffline(text, now);
  if ((offline.tasks?.length ?? 0) >= 2) return { ...settled, tasks: offline.tasks! };
  const single = settled.tasks?.[0]?.kind ?? (offline.route === 'multi' || offline.route === 'human' || offline.route === 'general' ? 'rag' : offline.route);
  const { tasks: _dropped, ...rest } = settled;
  return { ...rest, route: single, reason: 'the request could not be split into several tasks, so it goes to its strongest intent' };
}
