import { OfflineModel, ToolError, type ModelClient } from 'switchboard/engine';
import type { ImageDescription } from './ImageDescription.js';
import { imageDamage } from './imageDamage.js';
import { imageMimeType } from './imageMimeType.js';
import { findRegisteredImage, sha256Of } from './imageRegistry.js';

/** Options for {@link describeImage}. */
export interface DescribeImageOptions {
  /** A vision-capable model; default (or an `OfflineModel`): the registry of fixture images. */
  model?: ModelClient;
  signal?: AbortSignal;
}

/** The largest image accepted, in bytes. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** The vision model's system prompt. */
export const VISION_INSTRUCTIONS =
  'You read photos that customers send of Aero devices. Describe in one English sentence what the device shows, ' +
  'starting with any LED fault code in the form "LED fault code E02: red blinking". If no device or fault is visible, say so.';

/** What an unknown image is normalized to offline. */
export const UNRECOGNIZED_TEXT = 'The attached image is not recognized: it matches no known fault picture, so no fault code could be read from it.';

const faultCodesIn = (text: string) => [...new Set(text.match(/\bE\d{2}\b/g) ?? [])];

/**
 * Normalizes an image to text (fault codes first), so only text ever reaches the graph. With a
 * vision-capable model the image goes to it as an image input (`openai` SDK `image_url`, a data
 * URL); without one, or with the `OfflineModel`, the registry of fixture images answers by
 * SHA-256. Bytes that are not PNG, JPEG, GIF or WebP, that do not decode (see `imageDamage`), or
 * larger than 5 MB, are refused with a `ToolError` (`invalid_tool_arguments`); model errors reject
 * as they are.
 *
 * @example
 * await describeImage(readFileSync('specialists/vision/fixtures/e02-red-led.png'));
 * // { text: 'LED fault code E02: red blinking', faultCodes: ['E02'], recognized: true, source: 'registry', … }
 */
export async function describeImage(bytes: Uint8Array, options: DescribeImageOptions = {}): Promise<ImageDescription> {
  if (!(bytes instanceof Uint8Array)) {
    throw new ToolError(`describeImage: expected the image as a Buffer or Uint8Array; received ${typeof bytes}`, { code: 'invalid_tool_arguments' });
  }
  if (bytes.length > MAX_IMAGE_BYTES) {
    throw new ToolError(`the image is ${bytes.length} bytes; at most ${MAX_IMAGE_BYTES} are accepted, send a smaller picture`, { code: 'invalid_tool_arguments' });
  }
  const mimeType = imageMimeType(bytes);
  if (mimeType === undefined) {
    throw new ToolError('the attachment is not a PNG, JPEG, GIF or WebP image; send a photo in one of those formats', { code: 'invalid_tool_arguments' });
  }
  const damage = imageDamage(bytes, mimeType);
  if (damage !== null) {
    throw new ToolError(`the attachment is a damaged ${mimeType.slice('image/'.length).toUpperCase()} image: ${damage}; send the picture again`, { code: 'invalid_tool_arguments' });
  }
  const sha256 = sha256Of(bytes);
  const known = findRegisteredImage(bytes);
  const model = options.model ?? new OfflineModel();
  const offline = model instanceof OfflineModel;
  // The offline rule is the registry; a real model sees the picture itself.
  const response = await model.complete({
    messages: [
      { role: 'system', content: VISION_INSTRUCTIONS },
      {
        role: 'user',
        content: 'What does this picture show? Name any LED fault code.',
        images: [{ url: `data:${mimeType};base64,${Buffer.from(bytes).toString('base64')}` }],
      },
    ],
    tools: [],
    agent: 'vision',
    offline: () => known?.text ?? UNRECOGNIZED_TEXT,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const text = (response.text ?? '').trim();
  return {
    text: text === '' ? UNRECOGNIZED_TEXT : text,
    faultCodes: faultCodesIn(text),
    recognized: offline ? known !== undefined : text !== '',
    sha256,
    source: offline ? 'registry' : model.name,
  };
}
