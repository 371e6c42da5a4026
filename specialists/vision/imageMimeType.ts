/** The image formats vision models accept, by their leading bytes. */
const SIGNATURES: Array<{ mimeType: string; test: (b: Uint8Array) => boolean }> = [
  { mimeType: 'image/png', test: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 },
  { mimeType: 'image/jpeg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { mimeType: 'image/gif', test: (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38 },
  { mimeType: 'image/webp', test: (b) => b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57 && b[9] === 0x45 },
];

/**
 * The MIME type of PNG, JPEG, GIF or WebP bytes, read from their signature; undefined for anything else.
 *
 * @example
 * imageMimeType(readFileSync('led.png')); // 'image/png'
 */
export function imageMimeType(bytes: Uint8Array): string | undefined {
  return SIGNATURES.find((s) => s.test(bytes))?.mimeType;
}
