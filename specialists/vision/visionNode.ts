import { createModelFromEnv, type AgentNode, type ModelClient } from 'switchboard/engine';
import { describeImage } from './describeImage.js';
import { ImageAttachment, loadAttachment } from './ImageAttachment.js';
import { VISION_KEY, type ImageDescription } from './ImageDescription.js';
import { requestHandoff } from '../shared/Handoff.js';
import { questionOf } from '../shared/questionOf.js';
import { specialistNode } from '../shared/specialistNode.js';

/** Options for {@link visionNode}. */
export interface VisionNodeOptions {
  /** Default: `createModelFromEnv()`; the `OfflineModel` answers from the fixture registry. */
  model?: ModelClient;
  /** Where relative attachment paths are resolved (default: the working directory). */
  baseDir?: string;
  /** The metadata key holding the attachment (default `image`). */
  metadataKey?: string;
}

/**
 * The `vision` node: normalizes an attached image to text before classification (see
 * {@link describeImage}). It reads `request.metadata.image` ({@link ImageAttachment}) and the
 * question, and writes only the derived {@link ImageDescription} to `vision` — never the bytes.
 * An unreadable attachment (missing, not an image, damaged, or only the `[image]` placeholder left
 * by redaction after a restore), a failing model, or a picture nothing was recognized in is recorded
 * as an unrecognized description and a handoff request (`handoff`), not thrown: the graph routes to
 * a person instead of answering as if the picture had been seen.
 *
 * Returns `"<question>\n\nAttached image: <text>"` as output text, so `classify` reads the image
 * as text. (The engine keeps request metadata on later requests; pass `{ path }` so no bytes
 * travel with it, or a data URL, which stores and stored events redact.) Streams a
 * `vision.described` event (text, fault codes, hash).
 *
 * @example
 * graph.addNode('vision', visionNode({ model })).addEdge('vision', 'classify');
 * await graph.run({ input: 'What does this mean?', metadata: { image: { path: 'led.png' } } });
 */
export function visionNode(options: VisionNodeOptions = {}): AgentNode {
  const model = options.model ?? createModelFromEnv();
  const key = options.metadataKey ?? 'image';
  return specialistNode('vision', async (ctx, request, emit) => {
    const question = questionOf(ctx, request);
    const raw = request.metadata?.[key];
    if (raw === undefined || raw === null) return null;
    let description: ImageDescription;
    let readable = true;
    const unreadable = (why: string): ImageDescription => {
      readable = false;
      return { text: `The attached image could not be used: ${why}`, faultCodes: [], recognized: false, sha256: null, source: 'none' };
    };
    const attachment = ImageAttachment.safeParse(raw);
    if (isRedacted(raw)) {
      description = unreadable(
        'its bytes are not available here (pictures are kept only in the memory of the process that received them, and this run was restored from storage); send the picture again',
      );
    } else if (!attachment.success) {
      description = unreadable('the attachment must be { path } or { dataUrl: "data:image/png;base64,…" }');
    } else {
      try {
        const bytes = await loadAttachment(attachment.data, options.baseDir);
        description = await describeImage(bytes, { model, signal: ctx.signal });
      } catch (error) {
        description = unreadable(error instanceof Error ? error.message : String(error));
      }
    }
    ctx.put(VISION_KEY, description);
    // A picture the run cannot use must not be answered as if it had been seen: a person takes over.
    if (!readable) requestHandoff(ctx, `the attached picture could not be read: ${description.text.replace(/^The attached image could not be used: /, '')}`, 'vision');
    else if (!description.recognized) requestHandoff(ctx, 'the attached picture shows nothing the vision model recognizes (no known device or fault code); a person should look at it', 'vision');
    emit({ type: 'vision.described', text: description.text, faultCodes: description.faultCodes, recognized: description.recognized, sha256: description.sha256 });
    return `${question}\n\nAttached image: ${description.text}`;
  });
}

/** True for an attachment whose `data:` URL was replaced by redaction (a run restored from storage). */
function isRedacted(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && (raw as { dataUrl?: unknown }).dataUrl === '[image]';
}
