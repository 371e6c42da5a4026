/** The image types Switchboard accepts (CLI `--image`, HTTP uploads). */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** An accepted image type. */
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** Largest accepted image, in bytes. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0) => signature.every((b, i) => bytes[at + i] === b);

/**
 * The accepted image type these bytes are, by their signature (PNG, JPEG, GIF87a/89a, RIFF WebP),
 * or undefined. The name of a file says nothing: a text file named `.png` is not an image.
 *
 * @example
 * imageMediaType(readFileSync('led.png')); // 'image/png'
 */
export function imageMediaType(bytes: Uint8Array): ImageMediaType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return 'image/gif';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}
