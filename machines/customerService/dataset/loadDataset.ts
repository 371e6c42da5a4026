import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GraphDefinitionError } from 'switchboard/engine';
import { z } from 'zod';
import { LabelledMessage } from './LabelledMessage.js';

/** The two parts of the labelled set: `train` (what the offline model learns from) and `heldout` (only measured). */
export type DatasetSplit = 'train' | 'heldout';

/** The JSONL file of a split, shipped beside this module. */
export const datasetFile = (split: DatasetSplit): string => fileURLToPath(new URL(`./${split}.jsonl`, import.meta.url));

/** Parses JSONL text of labelled messages; a bad line is a typed error naming the line and what is wrong. */
export function parseDataset(text: string, source = 'dataset'): LabelledMessage[] {
  const out: LabelledMessage[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new GraphDefinitionError(`${source} line ${i + 1} is not JSON (${(error as Error).message}); write one message object per line`);
    }
    const parsed = LabelledMessage.safeParse(json);
    if (!parsed.success) throw new GraphDefinitionError(`${source} line ${i + 1} is not a labelled message: ${z.prettifyError(parsed.error)}`);
    out.push(parsed.data);
  });
  return out;
}

const cache = new Map<string, LabelledMessage[]>();

/**
 * The labelled customer messages of one split (`train` or `heldout`), or of any JSONL file.
 *
 * @example
 * loadDataset('heldout').filter((m) => m.route === 'multi').length;
 */
export function loadDataset(split: DatasetSplit | { file: string }): LabelledMessage[] {
  const file = typeof split === 'string' ? datasetFile(split) : split.file;
  let messages = cache.get(file);
  if (messages === undefined) {
    messages = parseDataset(readFileSync(file, 'utf8'), file);
    cache.set(file, messages);
  }
  return messages;
}
