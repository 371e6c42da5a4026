import type { AgentNode } from 'switchboard/engine';
import { GraphDefinitionError } from 'switchboard/engine';
import { z } from 'zod';
import { FAULTS_KEY, Fault } from '../../specialists/shared/Fault.js';
import { QUESTION_KEY } from '../../specialists/shared/questionOf.js';

/** What a customer-service request may carry besides its text. */
export const IngestMetadata = z
  .object({
    /** An attached picture: a file path or a data URL. Only its description ever enters the state. */
    image: z
      // `[image]` is what a data URL becomes in storage: a restored run still carries the image, unreadable, and vision says so.
      .union([z.object({ path: z.string().min(1) }), z.object({ dataUrl: z.union([z.string().startsWith('data:image/'), z.literal('[image]')]) })])
      .optional(),
    /** Faults to inject (demo and tests). */
    faults: z.array(Fault).optional(),
    /** Tool rounds allowed in the order loop. */
    toolBudget: z.number().int().min(1).max(20).optional(),
  })
  .passthrough();

/**
 * `ingest`: normalizes the request into the shared state — the question text, injected faults, the
 * tool budget and whether an image is attached — and passes the request on unchanged.
 */
export function ingestNode(): AgentNode {
  return {
    name: 'ingest',
    execute(ctx, request) {
      if (typeof request.input !== 'string' || request.input.trim() === '') {
        throw new GraphDefinitionError('a customer-service request needs a non-empty message text as its input');
      }
      const parsed = IngestMetadata.safeParse(request.metadata ?? {});
      if (!parsed.success) {
        throw new GraphDefinitionError(`request metadata is not valid: ${z.prettifyError(parsed.error)}`);
      }
      ctx.put(QUESTION_KEY, request.input.trim());
      ctx.put(FAULTS_KEY, parsed.data.faults ?? []);
      if (parsed.data.toolBudget !== undefined) ctx.put('toolBudget', parsed.data.toolBudget);
      ctx.put('hasImage', parsed.data.image !== undefined);
      return null;
    },
  };
}
