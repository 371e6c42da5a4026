import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentContext, ContextKeyMissingError, Workflow, contextKey, step } from 'switchboard';
import { sqliteTarget } from '../persistence/storeTargets.js';

const SCORE = contextKey('score', z.number());
const reads = (name: string) => step(name, (ctx: AgentContext) => ctx.require(SCORE));
const pass = (name: string) => step(name, (_c, s: string) => s);

describe('a context key read before any step wrote it', () => {
  it('fails the run with ContextKeyMissingError naming the key and the step that read it', async () => {
    const run = await Workflow.define<string>('reads-early').step(pass('draft')).then(reads('grade')).then(reads('report')).run('q');
    expect(run.status).toBe('failed');
    expect(run.error).toBeInstanceOf(ContextKeyMissingError);
    expect(run.error).toMatchObject({ code: 'context_missing', key: 'score', step: 'grade' });
    expect(run.error!.message).toContain('"score"');
    expect(run.error!.message).toContain('step "grade"');
  });

  it('names the branch step that read it inside a parallel', async () => {
    const run = await Workflow.define<string>('reads-in-branch').step(pass('draft')).parallel(pass('spell'), reads('judge')).run('q');
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ name: 'ContextKeyMissingError', key: 'score', step: 'judge' });
    expect(run.error!.message).toContain('step "judge"');
  });

  it('names the step in the error a stored run keeps (SQLite file)', async () => {
    const target = sqliteTarget();
    try {
      const run = await Workflow.define<string>('reads-stored').step(pass('draft')).then(reads('grade')).run('q', { store: target.store });
      const record = (await target.store.getRun(run.runId))!;
      expect(record.status).toBe('failed');
      expect(record.error).toMatchObject({ code: 'context_missing' });
      expect(record.error!.message).toContain('step "grade"');
    } finally {
      await target.close();
    }
  });

  it('outside a step (no current step in the context) names only the key', () => {
    expect(() => AgentContext.empty().require(SCORE)).toThrow(/context key "score" is required but has no value/);
  });
});
