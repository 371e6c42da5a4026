import type { MessageEntities } from '../dataset/LabelledMessage.js';
import type { EntitySpan } from './EntitySpan.js';
import { readFaultCodes } from './readFaultCodes.js';
import { readOrderIds, type ReadOrderIdOptions } from './readOrderId.js';
import { readPeriods } from './readPeriods.js';

/** Options for {@link extractEntities}. */
export interface ExtractEntitiesOptions extends ReadOrderIdOptions {
  /** The time relative periods are read against (ms since the epoch; default: now). */
  now?: number;
}

/** What {@link extractEntities} finds: the first of each kind, and every span (for features and task splitting). */
export interface ExtractedEntities {
  entities: MessageEntities;
  spans: EntitySpan[];
}

/**
 * The order number, report month and LED fault code a message names — each normalized, the first
 * of its kind winning — with the spans of everything found.
 *
 * @example
 * extractEntities('Refund for so-20261002 and the Aug 2026 report', { now: Date.now() }).entities;
 * // { orderId: 'SO20261002', period: '2026-08' }
 */
export function extractEntities(text: string, options: ExtractEntitiesOptions = {}): ExtractedEntities {
  const orders = readOrderIds(text, options);
  // Order numbers look like dates to the period reader ("20261002"): read periods only outside them.
  const masked = orders.reduce((t, s) => t.slice(0, s.start) + ' '.repeat(s.end - s.start) + t.slice(s.end), text);
  const periods = readPeriods(masked, { now: options.now ?? Date.now() });
  const faults = readFaultCodes(masked);
  const spans = [...orders, ...periods, ...faults].sort((a, b) => a.start - b.start);
  const entities: MessageEntities = {};
  if (orders[0]) entities.orderId = orders[0].value;
  if (periods[0]) entities.period = periods[0].value;
  if (faults[0]) entities.faultCode = faults[0].value;
  return { entities, spans };
}
