import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentContext, ContextKeyMissingError, StateValidationError, contextKey } from 'switchboard';

const TOPIC = contextKey('topic', z.string());
const SCORE = contextKey('score', z.number().min(0).max(1));

describe('AgentContext', () => {
  it('returns a new context from mutate().with().build() and leaves the old one unchanged', () => {
    const empty = AgentContext.empty();
    const next = empty.mutate().with(TOPIC, 'billing').with(SCORE, 0.5).build();
    expect(next.get(TOPIC)).toBe('billing');
    expect(next.get(SCORE)).toBe(0.5);
    expect(empty.get(TOPIC)).toBeUndefined();
    expect(empty.keys()).toEqual([]);
    expect(Object.isFrozen(next.toJSON())).toBe(true);
  });

  it('refuses a value that fails the key schema with a StateValidationError naming the key and the step', () => {
    const ctx = AgentContext.empty().mutate().with(AgentContext.CURRENT_STEP, 'rate').build();
    const write = () => ctx.mutate().with(SCORE, 3).build();
    expect(write).toThrow(StateValidationError);
    try {
      write();
    } catch (error) {
      expect((error as StateValidationError).key).toBe('score');
      expect((error as StateValidationError).code).toBe('state_invalid');
      expect((error as Error).message).toContain('state key "score"');
      expect((error as Error).message).toContain('"rate"');
    }
  });

  it('refuses a value that is not JSON under a plain key, with the same checks as graph state', () => {
    expect(() => AgentContext.empty().mutate().with('when', new Date()).build()).toThrow(/not|JSON/);
    try {
      AgentContext.empty().mutate().with('when', new Date()).build();
    } catch (error) {
      expect((error as StateValidationError).code).toBe('state_not_json');
    }
  });

  it('copies and freezes written objects so later changes to the original do not leak in', () => {
    const tags = ['a'];
    const ctx = AgentContext.empty().mutate().with('tags', tags).build();
    tags.push('b');
    expect(ctx.get('tags')).toEqual(['a']);
    expect(Object.isFrozen(ctx.get('tags'))).toBe(true);
  });

  it('require throws ContextKeyMissingError naming the missing key and those present', () => {
    const ctx = AgentContext.empty().mutate().with(TOPIC, 'x').build();
    expect(ctx.require(TOPIC)).toBe('x');
    expect(() => ctx.require(SCORE)).toThrow(ContextKeyMissingError);
    try {
      ctx.require(SCORE);
    } catch (error) {
      expect((error as ContextKeyMissingError).key).toBe('score');
      expect((error as ContextKeyMissingError).code).toBe('context_missing');
      expect((error as Error).message).toContain('"topic"');
    }
  });

  it('mergeFrom overlays the donor, the donor winning where both have a key', () => {
    const mine = AgentContext.from({ a: 1, b: 2 });
    const donor = AgentContext.from({ b: 3, c: 4 });
    expect(mine.mergeFrom(donor).toJSON()).toEqual({ a: 1, b: 3, c: 4 });
    expect(mine.toJSON()).toEqual({ a: 1, b: 2 });
  });

  it('round-trips through JSON', () => {
    const ctx = AgentContext.empty()
      .mutate()
      .with(AgentContext.JUDGE_VERDICT, { decision: 'PASS', score: 0.9, reasons: ['clear'] })
      .with(AgentContext.ITERATION_COUNT, 2)
      .build();
    const back = AgentContext.from(JSON.parse(JSON.stringify(ctx)));
    expect(back.get(AgentContext.JUDGE_VERDICT)).toEqual({ decision: 'PASS', score: 0.9, reasons: ['clear'] });
    expect(back.require(AgentContext.ITERATION_COUNT)).toBe(2);
  });

  it('has well-known keys with schemas that check their values', () => {
    expect(AgentContext.WORKFLOW_RUN_ID.name).toBe('workflow.runId');
    expect(() => AgentContext.empty().mutate().with(AgentContext.ITERATION_COUNT, -1)).toThrow(StateValidationError);
    expect(() => AgentContext.empty().mutate().with(AgentContext.JUDGE_VERDICT, { decision: 'MAYBE' } as never)).toThrow(StateValidationError);
  });

  it('removes a key with without()', () => {
    const ctx = AgentContext.from({ a: 1, b: 2 }).mutate().without('a').build();
    expect(ctx.toJSON()).toEqual({ b: 2 });
    expect(ctx.has('a')).toBe(false);
  });
});
