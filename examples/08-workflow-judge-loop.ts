/**
 * Draft → judge gate → revise, with a reflector turning the verdict into feedback, offline: the
 * judge is an llmJudge on the embedded OfflineModel (a rule scores the draft).
 * Run: npx tsx examples/08-workflow-judge-loop.ts
 */
import { AgentContext, JudgeGate, OfflineModel, Workflow, llmJudge, step } from 'switchboard';

const model = new OfflineModel({
  rules: {
    judge: ({ input }) => ({
      json: input.includes('refund') && input.includes('sorry') ? { score: 0.9, reasons: ['apologises and offers a refund'] } : { score: 0.3, reasons: ['no apology or no refund'] },
    }),
  },
});

const draft = step('draft', (_ctx, complaint: string) => `About "${complaint}": we will look into it.`);
const reflect = step('reflect', (_ctx, verdict: unknown) => `Fix: ${(verdict as { reasons: string[] }).reasons.join('; ')}`);
const revise = step('revise', (ctx, text: string) => {
  const feedback = ctx.get(AgentContext.JUDGE_REFLECTION) ?? '';
  return feedback.includes('refund') ? `We are sorry. ${text} A refund is on its way.` : text;
});
const send = step('send', (_ctx, text: string) => `SENT: ${text}`);

const reply = Workflow.define<string>('complaint-reply')
  .step(draft)
  .gate(new JudgeGate(llmJudge(model, 'Apologises and offers a refund'), 0.7))
  .onPass(send)
  .onFail(revise)
  .withReflector(reflect)
  .maxRetries(2)
  .end();

const run = await reply.run('my order arrived broken');
console.log('status:', run.status);
console.log('path:  ', run.path.join(' → '));
console.log('output:', run.output);
console.log('verdict:', JSON.stringify(run.context.get(AgentContext.JUDGE_VERDICT)));
