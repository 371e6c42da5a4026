/**
 * A graphs module for the specialist child-job tests (`switchboard --graphs test/queue/specialistJobGraphs.ts worker`):
 * a coordinator that sends one request to three specialists, each of which charges once (a side
 * effect through the journal, `ctx.once`) and then works for 200 ms.
 *
 * SWITCHBOARD_SPECIALIST_LEDGER  a directory: `spans.jsonl` (one line per specialist execution that
 *                                 ran to its end: kind, pid, start, end), `effects.jsonl` (one line per
 *                                 charge carried out)
 * SWITCHBOARD_SPECIALIST_KILL    a specialist kind: the first process to run it dies of SIGKILL
 *                                 100 ms into its work, after its charge (a marker file says it happened)
 * SWITCHBOARD_SPECIALIST_MEET    a number N: each specialist waits (up to 20 s) until N specialists have
 *                                 started before it works, so on a loaded machine they still work at the
 *                                 same time when they can; specialists that cannot (one worker running
 *                                 them one after another) go on after the 20 s and do not overlap
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Coordinator, END, StateGraph, type TaskResult } from 'switchboard';

const ledger = process.env.SWITCHBOARD_SPECIALIST_LEDGER;
if (ledger === undefined || !existsSync(ledger)) throw new Error('SWITCHBOARD_SPECIALIST_LEDGER must name an existing directory');
const killKind = process.env.SWITCHBOARD_SPECIALIST_KILL ?? '';
const meet = Number(process.env.SWITCHBOARD_SPECIALIST_MEET ?? '0');

/** Waits until `meet` specialists have started (in any process), or 20 s have passed. */
async function meeting(kind: string): Promise<void> {
  if (meet <= 0) return;
  appendFileSync(join(ledger!, 'arrivals.jsonl'), `${kind}\n`);
  const until = Date.now() + 20_000;
  while (Date.now() < until && readFileSync(join(ledger!, 'arrivals.jsonl'), 'utf8').split('\n').filter(Boolean).length < meet) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** How long each specialist works. */
export const WORK_MS = 200;

function specialist(kind: string) {
  return new StateGraph({ name: `desk-${kind}` })
    .addNode('work', async (ctx, request) => {
      const arrived = Date.now();
      await meeting(kind);
      const start = Date.now();
      const receipt = await ctx.once('charge', (key) => {
        appendFileSync(join(ledger!, 'effects.jsonl'), `${JSON.stringify({ kind, key, pid: process.pid })}\n`);
        return `receipt-${kind}`;
      });
      const marker = join(ledger!, `killed-${kind}`);
      if (kind === killKind && !existsSync(marker)) {
        writeFileSync(marker, String(process.pid));
        setTimeout(() => process.kill(process.pid, 'SIGKILL'), WORK_MS / 2);
      }
      await new Promise((resolve) => setTimeout(resolve, WORK_MS));
      appendFileSync(join(ledger!, 'spans.jsonl'), `${JSON.stringify({ kind, pid: process.pid, arrived, start, end: Date.now() })}\n`);
      ctx.put('receipt', receipt);
      return `${kind} handled "${String(request.input)}" (${receipt})`;
    })
    .start('work');
}

const coordinator = new Coordinator({
  specialists: { orders: specialist('orders'), billing: specialist('billing'), policy: specialist('policy') },
  exportState: ['receipt'],
});

const desk = new StateGraph({ name: 'desk' })
  .addNode('plan', coordinator.planNode((_ctx, request) => ['orders', 'billing', 'policy'].map((kind) => ({ kind, input: String(request.input) }))))
  .addNode('dispatch', coordinator.dispatchNode())
  .addNode('answer', (ctx) =>
    (ctx.get<TaskResult[]>('specialistResults') ?? []).map((r) => `${r.kind}: ${r.status}: ${r.outputText} ${JSON.stringify(r.output)}`).join('\n'),
  )
  .start('plan')
  .addEdge('plan', 'dispatch')
  .addEdge('dispatch', 'answer')
  .addEdge('answer', END);

export const graphs = [desk];
