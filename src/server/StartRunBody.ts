import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AgentRequest } from '../graph/AgentNode.js';
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES, imageMediaType } from '../input/imageMediaType.js';
import { MessageText } from '../input/RunText.js';
import { RunBudgetInput } from '../input/RunBudgetInput.js';
import { MAX_MODEL_NAME_LENGTH } from '../model/ModelCatalog.js';

/** An uploaded image: its media type and its bytes in base64 (a `data:` URL prefix is accepted). */
export const ImageUpload = z.object({
  mediaType: z.enum(IMAGE_MEDIA_TYPES, { error: `mediaType must be one of ${IMAGE_MEDIA_TYPES.join(', ')}` }),
  base64: z
    .string()
    .transform((s) => s.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, ''))
    .pipe(
      z
        .string()
        .min(1, 'base64 must not be empty')
        .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'base64 must be standard base64 (A-Z, a-z, 0-9, +, /, = padding)')
        .max(Math.ceil(MAX_IMAGE_BYTES / 3) * 4, `the image must be at most ${MAX_IMAGE_BYTES} bytes`),
    ),
  name: z.string().max(200).optional(),
})
  // The bytes decide what the image is: they must carry a PNG, JPEG, GIF or WebP signature, and
  // that type (not the declared one) is what the run receives.
  .transform((upload, ctx) => {
    const actual = imageMediaType(Buffer.from(upload.base64.slice(0, 24), 'base64'));
    if (actual === undefined) {
      ctx.addIssue({ code: 'custom', path: ['base64'], message: `the bytes are not a ${IMAGE_MEDIA_TYPES.join(', ')} image (no image signature at the start)` });
      return z.NEVER;
    }
    return { ...upload, mediaType: actual };
  });
/** An uploaded image. */
export type ImageUpload = z.infer<typeof ImageUpload>;

/**
 * `POST /api/runs`: which graph, the message, an optional image, optional budgets
 * (`{ maxCost, maxTokens, maxIterations, maxDuration }`, the CLI's `--max-*` options), faults to
 * inject (the CLI's `--fault`), the model to run on and breakpoints.
 */
export const StartRunBody = z.strictObject({
  graph: z.string().min(1, 'graph must name a registered graph').optional(),
  message: MessageText,
  image: ImageUpload.optional(),
  budget: RunBudgetInput.optional(),
  /** Faults to inject, from the names the server was given (`ServerOptions.faults`; checked after the body). */
  faults: z.array(z.string().min(1).max(100)).max(32).optional(),
  /** The model the run uses, from the names the server was given (`ServerOptions.models`; checked after the body). */
  model: z.string().min(1, 'model must name one of the models GET /api/graphs lists').max(MAX_MODEL_NAME_LENGTH).optional(),
  /** Pause before / after these nodes (ids of the graph; checked at the start: `invalid_breakpoint`). */
  breakpoints: z.strictObject({ before: z.array(z.string().min(1)).max(100).optional(), after: z.array(z.string().min(1)).max(100).optional() }).optional(),
});
/** `POST /api/runs`. */
export type StartRunBody = z.infer<typeof StartRunBody>;

/**
 * What a run receives about an attached image, in `request.metadata.image`. The bytes travel only
 * as the `dataUrl`, a `data:` URL: the engine's redaction replaces every `data:` URL with `[image]`
 * before a snapshot or an event is stored or sent, so they live only in this process's memory.
 * `sha256` identifies the image after that (for example after a restart).
 */
export interface RunImage {
  mediaType: string;
  dataUrl: string;
  bytes: number;
  sha256: string;
  name?: string;
}

/** The run request for a start body: the message as input, the image (if any) as metadata. */
export function toRunRequest(body: Pick<StartRunBody, 'message' | 'image'>): AgentRequest {
  if (body.image === undefined) return { input: body.message };
  const bytes = Buffer.from(body.image.base64, 'base64');
  const image: RunImage = {
    mediaType: body.image.mediaType,
    dataUrl: `data:${body.image.mediaType};base64,${body.image.base64}`,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    ...(body.image.name === undefined ? {} : { name: body.image.name }),
  };
  return { input: body.message, metadata: { image } };
}
