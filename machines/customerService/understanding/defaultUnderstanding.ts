import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../dataset/loadDataset.js';
import { MessageUnderstanding, type MessageUnderstandingData } from './MessageUnderstanding.js';

/**
 * Where the build (`npm run build`) writes the understanding it trained, beside the compiled
 * module, so the compiled package starts without training. The sources never have one.
 */
export const TRAINED_UNDERSTANDING_FILE = fileURLToPath(new URL('./trainedUnderstanding.json', import.meta.url));

let trained: MessageUnderstanding | null = null;

/** The understanding the build trained from the same code and data, or null (running from the sources, or no build output). */
function readTrained(): MessageUnderstanding | null {
  if (import.meta.url.endsWith('.ts')) return null;
  try {
    return MessageUnderstanding.fromJSON(JSON.parse(readFileSync(TRAINED_UNDERSTANDING_FILE, 'utf8')) as MessageUnderstandingData);
  } catch {
    return null;
  }
}

/**
 * The understanding learned from the shipped training part (`dataset/train.jsonl`): in the
 * compiled package, the one the build trained; otherwise trained once per process on first use (a
 * few hundred milliseconds). Shared after that. The held-out part is never read here.
 */
export function defaultUnderstanding(): MessageUnderstanding {
  trained ??= readTrained() ?? MessageUnderstanding.train(loadDataset('train'));
  return trained;
}
