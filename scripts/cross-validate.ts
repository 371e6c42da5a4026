// Five-fold cross-validation of the offline understanding on the training part only (the held-out
// part is never read): how settings were chosen. Run: npx tsx --conditions=switchboard-source scripts/cross-validate.ts
import { loadDataset } from '../machines/customerService/dataset/loadDataset.js';
import { MessageUnderstanding } from '../machines/customerService/understanding/MessageUnderstanding.js';
import { orderIntentOf } from '../machines/customerService/understanding/orderIntentOf.js';

const FOLDS = 5;
// Settings to try, e.g. --set clauseThreshold=0.5 --set temperature=0.7 (default: the shipped ones).
const settings = Object.fromEntries(
  process.argv.flatMap((a, i) => (process.argv[i - 1] === '--set' ? [a.split('=')] : [])).map(([k, v]) => [k, Number(v)]),
);
const messages = loadDataset('train');
let route = 0;
let entities = 0;
let tasks = 0;
let multi = 0;
let intents = 0;
let orderQuestions = 0;
// Messages for a person that name an order (a dispute of an order's charge or refund), and messages
// sent to a person that are not for one.
let disputes = 0;
let disputesToPerson = 0;
let toPerson = 0;
let wronglyToPerson = 0;
const intentMisses: string[] = [];
const confusion: Record<string, number> = {};
// --misses lists each message the folds got wrong (route or task split), with what was taken.
const listMisses = process.argv.includes('--misses');
const missed: string[] = [];
for (let fold = 0; fold < FOLDS; fold++) {
  const nlu = MessageUnderstanding.train(messages.filter((_, i) => i % FOLDS !== fold), settings);
  for (const m of messages.filter((_, i) => i % FOLDS === fold)) {
    const u = nlu.understand(m.text, { now: Date.parse(m.now) });
    const taken = u.confidence < 0.4 ? 'human' : u.route;
    if (m.route === 'human' && m.entities.orderId !== undefined) {
      disputes++;
      if (taken === 'human') disputesToPerson++;
    }
    if (taken === 'human') {
      toPerson++;
      if (m.route !== 'human') wronglyToPerson++;
    }
    if (taken === m.route) route++;
    else confusion[`${m.route}→${taken}`] = (confusion[`${m.route}→${taken}`] ?? 0) + 1;
    const planned = u.tasks.map((t) => t.kind).sort().join();
    if (taken !== m.route || (m.tasks && planned !== [...m.tasks].sort().join())) missed.push(`  ${m.id} ${m.route}→${taken}${u.tasks.length > 0 ? ` [${planned}]` : ''}  ${m.text}`);
    if (JSON.stringify(Object.entries(u.entities).sort()) === JSON.stringify(Object.entries(m.entities).sort())) entities++;
    const intent = orderIntentOf(m);
    if (intent !== undefined) {
      orderQuestions++;
      if (nlu.orderIntent(m.text, { now: Date.parse(m.now) }) === intent) intents++;
      else intentMisses.push(`${m.id} ${intent}`);
    }
    if (m.tasks) {
      multi++;
      if (taken === 'multi' && u.tasks.map((t) => t.kind).sort().join() === [...m.tasks].sort().join()) tasks++;
    }
  }
}
const pct = (n: number, d: number) => `${((n / d) * 100).toFixed(1)}% (${n}/${d})`;
process.stdout.write(
  `${FOLDS}-fold cross-validation on ${messages.length} training messages\n` +
    `  route ${pct(route, messages.length)}\n  entities ${pct(entities, messages.length)}\n  task splits ${pct(tasks, multi)}\n` +
    `  to a person: ${pct(disputesToPerson, disputes)} of the person messages naming an order; ${wronglyToPerson} of ${toPerson} sent to a person were not for one\n` +
    `  order intent (refund or status) ${pct(intents, orderQuestions)}${intentMisses.length > 0 ? ` misses ${intentMisses.join(', ')}` : ''}\n` +
    `  misses ${JSON.stringify(confusion)}\n` +
    (listMisses ? `${missed.join('\n')}\n` : ''),
);
