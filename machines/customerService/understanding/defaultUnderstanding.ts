import { loadDataset } from '../dataset/loadDataset.js';
import { MessageUnderstanding } from './MessageUnderstanding.js';

let trained: MessageUnderstanding | null = null;

/**
 * The understanding learned from the shipped training part (`dataset/train.jsonl`), trained once
 * per process on first use (a few hundred milliseconds) and shared after that. The held-out part
 * is never read here.
 */
export function defaultUnderstanding(): MessageUnderstanding {
  trained ??= MessageUnderstanding.train(loadDataset('train'));
  return trained;
}
