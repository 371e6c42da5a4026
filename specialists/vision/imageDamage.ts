import { crc32, inflateSync } from 'node:zlib';

/** Largest decoded PNG pixel data examined (a bigger picture is refused rather than inflated). */
const MAX_PIXEL_BYTES = 64 * 1024 * 1024;
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Adam7 passes: [x start, y start, x step, y step]. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

const u32 = (b: Uint8Array, at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
const u16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const le16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const le32 = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

/** Filtered scanline bytes of a PNG of this size and pixel layout (one filter byte per row). */
function pngDataSize(width: number, height: number, bitsPerPixel: number, interlaced: boolean): number {
  const rows = (w: number, h: number) => (w === 0 || h === 0 ? 0 : h * (1 + Math.ceil((w * bitsPerPixel) / 8)));
  if (!interlaced) return rows(width, height);
  return ADAM7.reduce((sum, [x0, y0, dx, dy]) => sum + rows(Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)), 0);
}

/** Why PNG bytes cannot be decoded: chunk structure, checksums, header and the compressed pixel data. */
function pngDamage(b: Uint8Array): string | null {
  let at = 8;
  let header: { width: number; height: number; bitsPerPixel: number; interlaced: boolean } | null = null;
  const data: Uint8Array[] = [];
  while (at + 12 <= b.length) {
    const length = u32(b, at);
    const type = String.fromCharCode(...b.subarray(at + 4, at + 8));
    if (at + 12 + length > b.length) return `the ${type} chunk runs past the end of the file (the file is cut off)`;
    const body = b.subarray(at + 8, at + 8 + length);
    if (crc32(b.subarray(at + 4, at + 8 + length)) !== u32(b, at + 8 + length)) return `the ${type} chunk fails its checksum (the file is corrupt)`;
    if (header === null && type !== 'IHDR') return 'it does not start with an IHDR header chunk';
    if (type === 'IHDR') {
      const channels = CHANNELS[body[9]!];
      if (length !== 13 || channels === undefined) return 'its IHDR header is not valid';
      header = { width: u32(body, 0), height: u32(body, 4), bitsPerPixel: channels * body[8]!, interlaced: body[12] === 1 };
      if (header.width === 0 || header.height === 0) return 'it has no pixels (width or height 0)';
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') {
      const expected = pngDataSize(header!.width, header!.height, header!.bitsPerPixel, header!.interlaced);
      if (expected > MAX_PIXEL_BYTES) return `it is too large to decode (${header!.width}×${header!.height})`;
      if (data.length === 0) return 'it has no image data (IDAT)';
      let pixels: Buffer;
      try {
        pixels = inflateSync(Buffer.concat(data), { maxOutputLength: expected + 1 });
      } catch {
        return 'its compressed image data does not decompress';
      }
      return pixels.length === expected ? null : `its image data holds ${pixels.length} bytes where ${expected} were expected`;
    }
    at += 12 + length;
  }
  return 'it ends before its IEND chunk (the file is cut off)';
}

/** Why JPEG bytes cannot be decoded: segments up to the scan, a frame header with a size, an end marker. */
function jpegDamage(b: Uint8Array): string | null {
  let at = 2;
  let frame = false;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return 'its segment markers are damaged';
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const length = u16(b, at + 2);
    if (length < 2 || at + 2 + length > b.length) return 'a segment runs past the end of the file (the file is cut off)';
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (length < 8 || u16(b, at + 5) === 0 || u16(b, at + 7) === 0) return 'its frame header has no size';
      frame = true;
    }
    if (marker === 0xda) {
      if (!frame) return 'it has no frame header before its image data';
      const end = b.lastIndexOf(0xd9);
      return end > at && b[end - 1] === 0xff ? null : 'it has no end-of-image marker (the file is cut off)';
    }
    at += 2 + length;
  }
  return 'it ends before its image data (the file is cut off)';
}

/** Why GIF bytes cannot be decoded: header, screen size, an image and the trailer. */
function gifDamage(b: Uint8Array): string | null {
  const version = String.fromCharCode(...b.subarray(0, 6));
  if (version !== 'GIF87a' && version !== 'GIF89a') return 'its header is not GIF87a or GIF89a';
  if (b.length < 14 || le16(b, 6) === 0 || le16(b, 8) === 0) return 'it has no screen size';
  if (!b.includes(0x2c, 13)) return 'it holds no image';
  return b[b.length - 1] === 0x3b ? null : 'it has no trailer (the file is cut off)';
}

/** Why WebP bytes cannot be decoded: the RIFF container's size and its first chunk. */
function webpDamage(b: Uint8Array): string | null {
  if (b.length < 20 || String.fromCharCode(...b.subarray(8, 12)) !== 'WEBP') return 'its RIFF header is not WEBP';
  if (le32(b, 4) + 8 > b.length) return 'its RIFF size runs past the end of the file (the file is cut off)';
  const chunk = String.fromCharCode(...b.subarray(12, 16));
  return chunk === 'VP8 ' || chunk === 'VP8L' || chunk === 'VP8X' ? null : `its first chunk "${chunk}" is not image data`;
}

const CHECKS: Record<string, (b: Uint8Array) => string | null> = { 'image/png': pngDamage, 'image/jpeg': jpegDamage, 'image/gif': gifDamage, 'image/webp': webpDamage };

/**
 * Why image bytes whose signature says `mimeType` cannot be decoded, or null when their structure
 * is sound: PNG chunks, checksums and pixel data are checked in full; JPEG, GIF and WebP by their
 * container (segments, header, size, end marker). A picture that fails this would reach a vision
 * model as noise, so it is reported instead of described.
 *
 * @example
 * imageDamage(readFileSync('led.png').subarray(0, 200), 'image/png'); // 'the IDAT chunk runs past the end of the file (the file is cut off)'
 */
export function imageDamage(bytes: Uint8Array, mimeType: string): string | null {
  const check = CHECKS[mimeType];
  return check === undefined ? `${mimeType} is not a supported image type` : check(bytes);
}
