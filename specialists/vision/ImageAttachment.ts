import { stat, readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { ToolError } from 'switchboard/engine';
import { z } from 'zod';
import { MAX_IMAGE_BYTES } from './describeImage.js';

/**
 * An image attached to a request (`request.metadata.image`): a file `path` (best: only the path is
 * ever recorded) or a `dataUrl` (`data:image/png;base64,…`), which may come with the workbench's
 * `mediaType`, `bytes`, `sha256` and `name`. The engine carries request metadata
 * from node to node, and run stores and stored events replace data URLs with `[image]`; bare
 * base64 is not accepted because nothing could recognize and strip it. Only the `vision` node
 * reads the bytes.
 */
export const ImageAttachment = z.union([
  z.object({ path: z.string().min(1) }).strict(),
  z
    .object({
      dataUrl: z.string().regex(/^data:image\/[a-z0-9.+-]+;base64,/i, 'dataUrl must be data:image/<type>;base64,…'),
      // What the workbench sends beside the bytes (its `RunImage`); only `dataUrl` is read.
      mediaType: z.string().optional(),
      bytes: z.number().optional(),
      sha256: z.string().optional(),
      name: z.string().optional(),
    })
    .strict(),
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
  return Buffer.from(attachment.dataUrl.slice(attachment.dataUrl.indexOf(',') + 1), 'base64');
}
