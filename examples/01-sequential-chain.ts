/**
 * A sequential chain: each node's output text becomes the next node's input.
 * Run: npx tsx examples/01-sequential-chain.ts
 */
import { SequentialWorkflow, type AgentNode } from 'switchboard';

const draft: AgentNode = {
  name: 'draft',
  execute: (_ctx, request) => `Dear customer, about "${String(request.input)}": we are on it.`,
};
const polish: AgentNode = {
  name: 'polish',
  execute: (_ctx, request) => `${String(request.input)} Kind regards, Support`,
};
const shout = (_ctx: unknown, request: { input: unknown }) => String(request.input).toUpperCase();

const chain = new SequentialWorkflow({ name: 'reply-chain' }).addNode(draft).addNode(polish).addNode(shout);
const run = await chain.run('my parcel is late');

console.log('status:', run.status);
console.log('path:  ', run.path.join(' → '));
console.log('output:', run.outputText);
