import type { AgentNode, ModelCatalog } from 'switchboard/engine';
import { GraphDefinitionError, RUN_MODEL_KEY } from 'switchboard/engine';
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
    /** The model the run's agents use, by its name in the graph's catalog (default: the first). */
    model: z.string().min(1).max(100).optional(),
  })
  .passthrough();

/**
 * `ingest`: normalizes the request into the shared state — the question text, injected faults, the
 * tool budget, the model the run uses (`model`: the one the request names, else the catalog's
 * default; a name the catalog does not know fails the run) and whether an image is attached — and
 * passes the request on unchanged.
 */
export function ingestNode(models: ModelCatalog): AgentNode {
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
      const model = parsed.data.model ?? models.defaultName;
      if (!models.has(model)) {
        throw new GraphDefinitionError(`request metadata names the model "${model}", which this graph was not given; known models: ${models.names.join(', ')}`);
      }
      ctx.put(QUESTION_KEY, request.input.trim());
      ctx.put(RUN_MODEL_KEY, model);
      ctx.put(FAULTS_KEY, parsed.data.faults ?? []);
      if (parsed.data.toolBudget !== undefined) ctx.put('toolBudget', parsed.data.toolBudget);
      ctx.put('hasImage', parsed.data.image !== undefined);
      return null;
    },
  };
}
