/**
 * A structured agent in a graph: an intake node puts the ticket into the shared state; a triage
 * agent reads it through an `input` mapper, must look the customer up first (`toolChoice`), answers
 * with JSON checked by a zod schema (`outputSchema`), and its `output` mapper writes the verdict
 * back into the state, where a router reads it.
 *
 * Offline by default (the agent's `offline` rule stands in for the model). With OPENAI_API_KEY set
 * (and optionally OPENAI_BASE_URL, SWITCHBOARD_MODEL) the same graph runs against that endpoint.
 *
 *   npx tsx examples/05-structured-agent.ts "From ana@example.com: the invoice charged me twice!"
 */
import { z } from 'zod';
import { Agent, AgentNode, END, StateGraph, createModelFromEnv, tool } from 'switchboard';

/** What triage must answer: the server gets it as a JSON schema, and the answer is checked against it. */
const Triage = z.object({
  category: z.enum(['billing', 'technical', 'account', 'other']),
  urgency: z.number().int().min(1).max(5),
  summary: z.string().min(1),
});

/** A stand-in customer directory, so the example needs no CRM. */
const CUSTOMERS: Record<string, { name: string; tier: 'standard' | 'premium' }> = {
  'ana@example.com': { name: 'Ana', tier: 'premium' },
  'bo@example.com': { name: 'Bo', tier: 'standard' },
};

const lookupCustomer = tool({
  name: 'lookup_customer',
  description: 'Finds the customer who wrote the ticket, by email address',
  parameters: z.object({ email: z.string().describe('The email address in the ticket') }),
  execute: ({ email }) => CUSTOMERS[email.trim().toLowerCase()] ?? { name: 'unknown', tier: 'standard' },
});

/** The offline stand-in: look the customer up, then classify by keywords. */
function triageOffline({ input, toolResults }: { input: string; toolResults: readonly { ok: boolean; output?: unknown }[] }) {
  if (toolResults.length === 0) {
    const email = /[\w.+-]+@[\w.-]+\.\w+/.exec(input)?.[0] ?? 'unknown@example.com';
    return { toolCalls: [{ name: 'lookup_customer', arguments: { email } }] };
  }
  const customer = toolResults[0]!.output as { tier: string };
  const text = input.toLowerCase();
  const category = /invoice|charge|refund|paid/.test(text)
    ? 'billing'
    : /error|crash|bug|login/.test(text)
      ? 'technical'
      : /avatar|password|profile|account/.test(text)
        ? 'account'
        : 'other';
  const urgency = Math.min(5, (/!|twice|urgent|down/.test(text) ? 3 : 2) + (customer.tier === 'premium' ? 1 : 0));
  const summary = input.split('\n').at(-1)!.replace(/^From [^:]+:\s*/, '').slice(0, 80);
  return { json: { category, urgency, summary } };
}

const model = createModelFromEnv();

const triage = new Agent({
  name: 'triage',
  instructions:
    'You triage support tickets. First call lookup_customer with the email address in the ticket. ' +
    'Then answer with JSON: category (billing, technical, account or other), urgency from 1 (low) to 5 ' +
    '(critical; premium customers one higher), and a one-line summary.',
  model,
  tools: [lookupCustomer],
  toolChoice: { name: 'lookup_customer' },
  outputSchema: Triage,
  offline: triageOffline,
});

const graph = new StateGraph({ name: 'structured-triage' })
  .addNode('intake', (ctx, request) => {
    ctx.put('ticket', String(request.input).trim());
    return null;
  })
  .addNode(
    'triage',
    new AgentNode(triage, {
      input: (ctx) => `Ticket:\n${ctx.get<string>('ticket')}`,
      output: (result) => ({ triage: result.output }),
    }),
  )
  .addNode('escalate', (ctx) => `Escalated to a human: ${ctx.get<z.infer<typeof Triage>>('triage')!.summary}`)
  .addNode('queue', (ctx) => `Queued for the ${ctx.get<z.infer<typeof Triage>>('triage')!.category} team.`)
  .start('intake')
  .addEdge('intake', 'triage')
  .addConditionalEdges('triage', (ctx) => ((ctx.get<z.infer<typeof Triage>>('triage')?.urgency ?? 0) >= 4 ? 'escalate' : 'queue'))
  .addEdge('escalate', END)
  .addEdge('queue', END);

const tickets = process.argv[2] !== undefined ? [process.argv[2]] : ['From ana@example.com: the invoice charged me twice!', 'From bo@example.com: how do I change my avatar?'];
console.log(`model: ${model.name}`);
for (const ticket of tickets) {
  const run = await graph.run(ticket);
  if (run.status !== 'completed') {
    console.error(`run ${run.status}: ${run.error?.message ?? 'no answer'}`);
    process.exitCode = 1;
    continue;
  }
  console.log(`ticket: ${ticket}`);
  console.log(`  triage: ${JSON.stringify(run.state.get('triage'))}`);
  console.log(`  path:   ${run.path.join(' → ')}`);
  console.log(`  answer: ${run.outputText}`);
}
