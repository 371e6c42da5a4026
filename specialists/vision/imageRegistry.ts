import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** One known fixture image: its content hash, file, and the text it is normalized to. */
export const RegisteredImage = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The file under `specialists/vision/fixtures/`. */
  file: z.string().regex(/^[\w.-]+\.png$/),
  text: z.string().min(1),
  faultCodes: z.array(z.string().regex(/^E\d{2}$/)),
});
/** One known fixture image (see {@link RegisteredImage}). */
export type RegisteredImage = z.infer<typeof RegisteredImage>;

/** The folder the fixture images and `registry.json` ship in. */
export const VISION_FIXTURES_DIR = fileURLToPath(new URL('./fixtures/', import.meta.url));

let registry: RegisteredImage[] | null = null;

/** The registry of fixture images shipped with the project (`fixtures/registry.json`), read once. */
export function imageRegistry(): readonly RegisteredImage[] {
  registry ??= z.array(RegisteredImage).parse(JSON.parse(readFileSync(`${VISION_FIXTURES_DIR}registry.json`, 'utf8')));
  return registry;
}

/** The hex SHA-256 of some bytes. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The registered image with these bytes (matched by SHA-256), or undefined.
 *
 * @example
 * findRegisteredImage(readFileSync('specialists/vision/fixtures/e02-red-led.png'))?.faultCodes; // ['E02']
 */
export function findRegisteredImage(bytes: Uint8Array): RegisteredImage | undefined {
  const hash = sha256Of(bytes);
  return imageRegistry().find((entry) => entry.sha256 === hash);
}
