import { z } from 'zod';

/**
 * What an image was normalized to: text (never the bytes), the fault codes found in it, whether it
 * was recognized, its SHA-256 and who described it (`registry` offline, else the model's name).
 */
export const ImageDescription = z.object({
  text: z.string(),
  faultCodes: z.array(z.string().regex(/^E\d{2}$/)),
  recognized: z.boolean(),
  /** Null when the attachment could not be read. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  source: z.string(),
});
/** What an image was normalized to (see {@link ImageDescription}). */
export type ImageDescription = z.infer<typeof ImageDescription>;

/** The shared-state key the `vision` node writes its {@link ImageDescription} to. */
export const VISION_KEY = 'vision';
