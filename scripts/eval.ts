// `npm run eval`: runs the held-out messages through the customer-service graph and prints the scores.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { createModelFromEnv } from '../src/index.js';
import { loadDataset } from '../machines/customerService/dataset/loadDataset.js';
import { evaluateMessages } from '../machines/customerService/eval/evaluateMessages.js';
import { formatEvalReport } from '../machines/customerService/eval/formatEvalReport.js';

/** Where the last eval is written for the workbench (the server reads the same place). */
export const DEFAULT_EVAL_FILE = '.switchboard/eval/latest.json';

const program = new Command('eval')
  .description('score the customer-service graph on labelled messages (offline, or OPENAI_API_KEY / OPENAI_BASE_URL for a model)')
  .option('--split <name>', 'heldout or train', 'heldout')
  .option('--file <jsonl>', 'labelled messages from another file instead of a split')
  .option('--limit <n>', 'only the first n messages')
  .option('--concurrency <n>', 'messages run at once', '2')
  .option('--out <file>', `where the report is written (default ${DEFAULT_EVAL_FILE}; env SWITCHBOARD_EVAL_FILE)`)
  .option('--json', 'print the report as JSON')
  .parse();
const opts = program.opts<{ split: string; file?: string; limit?: string; concurrency: string; out?: string; json?: boolean }>();
if (opts.split !== 'heldout' && opts.split !== 'train') program.error(`--split must be heldout or train; received "${opts.split}"`);
const limit = opts.limit === undefined ? Infinity : Number(opts.limit);
if (!(limit > 0)) program.error(`--limit must be a positive number; received "${opts.limit}"`);
const concurrency = Number(opts.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1) program.error(`--concurrency must be a positive integer; received "${opts.concurrency}"`);

const messages = loadDataset(opts.file ? { file: resolve(opts.file) } : (opts.split as 'heldout' | 'train')).slice(0, limit);
const report = await evaluateMessages(messages, {
  model: createModelFromEnv(process.env, { maxRetries: 2 }),
  concurrency,
  split: opts.file ?? opts.split,
  onCase: opts.json ? undefined : (_c, done, total) => process.stderr.write(`\r  ${done}/${total}`),
});
if (!opts.json) process.stderr.write('\n');
const out = resolve(opts.out ?? process.env['SWITCHBOARD_EVAL_FILE'] ?? DEFAULT_EVAL_FILE);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(opts.json ? `${JSON.stringify(report)}\n` : `${formatEvalReport(report)}\n\nreport written to ${out}\n`);
