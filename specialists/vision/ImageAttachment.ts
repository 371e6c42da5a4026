import { stat, readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { ToolError } from 'switchboard';
import { z } from 'zod';
import { MAX_IMAGE_BYTES } from './describeImage.js';

/**
 * An image attached to a request (`request.metadata.image`): a file `path` (best: nothing but the
 * path is ever recorded), a `dataUrl` (run stores and events replace data URLs with `[image]`), or
 * raw `base64`. The `vision` node reads it; nothing else should.
 */
export const ImageAttachment = z.union([
  z.object({ path: z.string().min(1) }).strict(),
  z.object({ dataUrl: z.string().regex(/^data:image\/[a-z0-9.+-]+;base64,/i, 'dataUrl must be data:image/<type>;base64,…') }).strict(),
  z.object({ base64: z.string().min(1), mimeType: z.string().optional() }).strict(),
]);
/** An image attached to a request (see {@link ImageAttachment}). */
export type ImageAttachment = z.infer<typeof ImageAttachment>;

/**
 * The bytes of an attachment; a relative `path` is resolved against `baseDir` (default: the
 * working directory). A missing or oversized file rejects with a `ToolError`.
 *
 * @example
 * const bytes = await loadAttachment({ path: 'specialists/vision/fixtures/e02-red-led.png' });
 */
export async function loadAttachment(attachment: ImageAttachment, baseDir: string = process.cwd()): Promise<Buffer> {
  if ('path' in attachment) {
    const file = isAbsolute(attachment.path) ? attachment.path : resolve(baseDir, attachment.path);
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch (error) {
      throw new ToolError(`the attached image ${attachment.path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the path`, {
        code: 'invalid_tool_arguments',
        cause: error,
      });
    }
    if (size > MAX_IMAGE_BYTES) {
      throw new ToolError(`the attached image is ${size} bytes; at most ${MAX_IMAGE_BYTES} are accepted`, { code: 'invalid_tool_arguments' });
    }
    return readFile(file);
  }
  const base64 = 'dataUrl' in attachment ? attachment.dataUrl.slice(attachment.dataUrl.indexOf(',') + 1) : attachment.base64;
  return Buffer.from(base64, 'base64');
}
