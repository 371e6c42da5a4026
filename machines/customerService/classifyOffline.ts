import type { Classification } from './Classification.js';
import { defaultUnderstanding } from './understanding/defaultUnderstanding.js';

/**
 * The offline classification of a message: the understanding learned from the training part
 * (route, calibrated confidence, order number, report month against `now`, fault code, and the
 * specialist tasks of a composite request).
 *
 * @example
 * classifyOffline('hi there!', Date.now()).route; // 'general'
 */
export function classifyOffline(text: string, now: number): Classification {
  const u = defaultUnderstanding().understand(text, { now });
  return {
    route: u.route,
    confidence: Math.round(u.confidence * 1000) / 1000,
    ...u.entities,
    ...(u.tasks.length > 0 ? { tasks: u.tasks } : {}),
    ...(u.reason ? { reason: u.reason } : u.confidence < 0.4 ? { reason: `the request is unclear (confidence ${u.confidence.toFixed(2)})` } : {}),
  };
}
