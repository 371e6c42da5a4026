// What the offline understanding costs per message, side by side with the keyword rules it
// replaced and with a whole offline run of the customer-service graph. Run: npm run bench:classify
import { cpus, loadavg } from 'node:os';
import { OfflineModel } from '../src/index.js';
import { customerService } from '../machines/customerService.js';
import { loadDataset } from '../machines/customerService/dataset/loadDataset.js';
import { MessageUnderstanding } from '../machines/customerService/understanding/MessageUnderstanding.js';
import { keywordClassify } from './impl/keywordClassifier.js';
import { interleaved, median } from './measure.js';
import { writeResultsSection } from './resultsSection.js';

// Every message of both parts, for their variety of length and wording (only the cost is measured here).
const texts = [...loadDataset('train'), ...loadDataset('heldout')].map((m) => m.text);
const now = Date.parse('2026-10-12T09:00:00Z');

const trainStart = process.hrtime.bigint();
const understanding = MessageUnderstanding.train(loadDataset('train'));
const trainMs = Number(process.hrtime.bigint() - trainStart) / 1e6;
const graph = customerService({ model: new OfflineModel(), clock: { now: () => now } });
const GRAPH_RUNS = 20;

type Key = 'keyword rules' | 'learned understanding' | 'graph run (greeting)';
const keys: Key[] = ['keyword rules', 'learned understanding', 'graph run (greeting)'];
let sink = 0;
const samples = await interleaved<Key>(
  async (key) => {
    if (key === 'keyword rules') for (const t of texts) sink += keywordClassify(t).confidence;
    // The order intent is read only for order questions; reading it for every message is the upper bound.
    else if (key === 'learned understanding') for (const t of texts) sink += understanding.understand(t, { now }).confidence + (understanding.orderIntent(t, { now }) === 'refund' ? 1 : 0);
    else for (let i = 0; i < GRAPH_RUNS; i++) sink += (await graph.run('hi there!')).steps;
  },
  { keys, warmupRounds: 2, rounds: 7, onSample: (key, round, ms) => process.stderr.write(`  ${key} round ${round + 1}: ${ms.toFixed(1)} ms\n`) },
);
const perMessageUs = (key: Key) => (median(samples[key]) * 1000) / (key === 'graph run (greeting)' ? GRAPH_RUNS : texts.length);
const learned = perMessageUs('learned understanding');
const rows = keys.map((k) => `| ${k} | ${perMessageUs(k).toFixed(1)} µs | ${(perMessageUs(k) / learned).toFixed(3)} |`);
const load = loadavg()[0]!.toFixed(1);
const markdown = `## Classification cost (bench/classify.bench.ts)

The offline understanding (entities, spelling correction, route classifier, clause split, order
intent) on each of the ${texts.length} labelled messages, beside the keyword rules it replaced and one whole offline run of the
customer-service graph on a greeting; median of 7 interleaved rounds after 2 warm-up rounds, on
${new Date().toISOString().slice(0, 10)} (${cpus().length} cores, load average ${load} while it ran). Training from the ${loadDataset('train').length} training messages, once per process: ${trainMs.toFixed(0)} ms.

| per message | time | ratio to the learned understanding |
| --- | --- | --- |
${rows.join('\n')}
`;
writeResultsSection('classify', markdown);
process.stdout.write(`${markdown}\n(checksum ${sink > 0 ? 'ok' : 'empty'})\n`);
