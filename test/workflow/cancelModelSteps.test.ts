import { describe, expect, it } from 'vitest';
import { Agent, Workflow, agentStep, chatStep, step, type ModelClient, type ModelRequest, type ModelResponse } from 'switchboard';

/** A model whose calls answer only when released, and that records the signal each call was given. */
function heldModel() {
  const calls: Array<{ agent: string | undefined; signal: AbortSignal | undefined }> = [];
  let started!: () => void;
  const allStarted = (n: number) =>
    new Promise<void>((resolve) => {
      started = () => {
        if (calls.length >= n) resolve();
      };
    });
  const model: ModelClient = {
    name: 'held',
    complete(request: ModelRequest): Promise<ModelResponse> {
      calls.push({ agent: request.agent, signal: request.signal });
      started();
      // Answers when its call is aborted (as a real client does), never otherwise.
      return new Promise((_resolve, reject) => request.signal?.addEventListener('abort', () => reject(request.signal!.reason), { once: true }));
    },
    stream() {
      throw new Error('not used');
    },
  };
  return { model, calls, allStarted };
}

describe('cancelling a workflow run stops the model calls of its steps', () => {
  it('a chatStep in flight is given the run signal and sees the abort by the time the run returns', async () => {
    const { model, calls, allStarted } = heldModel();
    const begun = allStarted(1);
    const controller = new AbortController();
    const wf = Workflow.define<string>('translate').step(chatStep(model, 'Translate: {input}', 'translate'));
    const running = wf.run('bonjour', { signal: controller.signal });
    await begun;
    controller.abort();
    const run = await running;
    expect(run.status).toBe('cancelled');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.signal).toBeDefined();
    expect(calls[0]!.signal!.aborted).toBe(true);
  });

  it('every parallel branch calling a model sees the abort (chatStep and agentStep), and the run returns cancelled', async () => {
    const { model, calls, allStarted } = heldModel();
    const begun = allStarted(3);
    const controller = new AbortController();
    const wf = Workflow.define<string>('review')
      .step(step('prepare', (_c, s: string) => s))
      .gather(
        chatStep(model, 'Summarise: {input}', 'summarise'),
        chatStep(model, 'Tag: {input}', 'tag'),
        agentStep(new Agent({ name: 'critic', instructions: 'Criticise.', model })),
      );
    const running = wf.run('a long text', { signal: controller.signal });
    await begun;
    controller.abort();
    const run = await running;
    expect(run.status).toBe('cancelled');
    expect(calls.map((c) => c.agent).sort()).toEqual(['critic', 'summarise', 'tag']);
    for (const call of calls) expect({ agent: call.agent, aborted: call.signal?.aborted }).toEqual({ agent: call.agent, aborted: true });
  });

  it('every item of a parallel(itemsOf, stepFor) calling a model sees the abort', async () => {
    const { model, calls, allStarted } = heldModel();
    const begun = allStarted(2);
    const controller = new AbortController();
    const wf = Workflow.define<string[]>('per-line').parallel(
      (_c, lines: string[]) => lines,
      (_line: string, index: number) => chatStep(model, 'Fix: {input}', `fix-${index}`),
    );
    const running = wf.run(['one', 'two'], { signal: controller.signal });
    await begun;
    controller.abort();
    const run = await running;
    expect(run.status).toBe('cancelled');
    expect(calls.map((c) => [c.agent, c.signal?.aborted]).sort()).toEqual([
      ['fix-0', true],
      ['fix-1', true],
    ]);
  });
});
