import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ToolError } from 'switchboard';
import { VISION_FIXTURES_DIR, describeImage, drawLedImage, encodePng, imageDamage, imageMimeType, imageRegistry } from '../../../specialists/index.js';
import { IMAGE_SAMPLES } from '../../fixtures/imageSamples.js';

const fixtures = imageRegistry().map((entry) => readFileSync(`${VISION_FIXTURES_DIR}${entry.file}`));
const green = readFileSync(`${VISION_FIXTURES_DIR}green-led.png`);

/** A copy of `bytes` with the byte at `at` inverted. */
const flip = (bytes: Buffer, at: number) => {
  const copy = Buffer.from(bytes);
  copy[at] = copy[at]! ^ 0xff;
  return copy;
};
const damage = (bytes: Buffer) => imageDamage(bytes, imageMimeType(bytes)!);

describe('imageDamage', () => {
  it('finds nothing wrong with sound pictures of every accepted type and size', () => {
    for (const bytes of [...fixtures, IMAGE_SAMPLES.png, IMAGE_SAMPLES.jpeg, IMAGE_SAMPLES.gif, IMAGE_SAMPLES.webp]) expect(damage(bytes)).toBeNull();
    for (const [w, h] of [[1, 1], [7, 3], [64, 17]] as const) expect(damage(encodePng(drawLedImage('green', w, h)))).toBeNull();
  });

  it('accepts an interlaced (Adam7) PNG and finds one whose pixel data is a byte short', () => {
    for (const [w, h] of [[1, 1], [3, 2], [9, 5], [16, 16]] as const) {
      const raw = adam7Rows(w, h);
      expect(damage(pngOf(w, h, raw, 1)), `${w}×${h}`).toBeNull();
      expect(damage(pngOf(w, h, raw.subarray(0, raw.length - 1), 1)), `${w}×${h} short`).toMatch(/were expected/);
    }
  });

  it('finds a cut-off file of every type', () => {
    expect(damage(green.subarray(0, 300))).toMatch(/cut off/);
    expect(damage(green.subarray(0, green.length - 12))).toMatch(/IEND/);
    expect(damage(IMAGE_SAMPLES.jpeg.subarray(0, IMAGE_SAMPLES.jpeg.length - 2))).toMatch(/end-of-image/);
    expect(damage(IMAGE_SAMPLES.jpeg.subarray(0, 120))).toMatch(/cut off/);
    expect(damage(IMAGE_SAMPLES.gif.subarray(0, IMAGE_SAMPLES.gif.length - 1))).toMatch(/trailer/);
    expect(damage(IMAGE_SAMPLES.webp.subarray(0, 100))).toMatch(/RIFF size/);
  });

  it('finds corrupt PNG data: a checksum, the header, the pixel data, a signature followed by noise', () => {
    // Byte 40 is inside the first IDAT chunk of the fixture; byte 20 in IHDR's width.
    expect(damage(flip(green, 40))).toMatch(/checksum/);
    expect(damage(flip(green, 20))).toMatch(/the IHDR chunk fails its checksum/);
    const noise = Buffer.concat([green.subarray(0, 8), Buffer.alloc(200, 0x41)]);
    expect(damage(noise)).not.toBeNull();
    // A PNG whose chunks are sound but whose pixel data is too short for its size.
    const sound = encodePng(drawLedImage('red', 8, 8));
    const ihdr = sound.subarray(8, 33);
    const chunk = chunkOf;
    const short = Buffer.concat([sound.subarray(0, 8), ihdr, chunk('IDAT', deflateSync(Buffer.alloc(10))), chunk('IEND', Buffer.alloc(0))]);
    expect(damage(short)).toMatch(/holds 10 bytes where \d+ were expected/);
    const notZlib = Buffer.concat([sound.subarray(0, 8), ihdr, chunk('IDAT', Buffer.from('not zlib at all')), chunk('IEND', Buffer.alloc(0))]);
    expect(damage(notZlib)).toMatch(/does not decompress/);
    const huge = Buffer.from(ihdr);
    huge.writeUInt32BE(100_000, 8);
    huge.writeUInt32BE(100_000, 12);
    huge.writeUInt32BE(crcOf(huge.subarray(4, 21)), 21);
    expect(damage(Buffer.concat([sound.subarray(0, 8), huge, chunk('IDAT', deflateSync(Buffer.alloc(10))), chunk('IEND', Buffer.alloc(0))]))).toMatch(/too large to decode/);
  });

  it('makes describeImage refuse a damaged picture with a ToolError instead of describing it', async () => {
    const error = await describeImage(green.subarray(0, 900)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toMatch(/^the attachment is a damaged PNG image: .*cut off.*send the picture again$/);
  });
});

/** CRC-32 as PNG uses it (zlib's), for building test chunks. */
function crcOf(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** A PNG chunk: length, type, body, CRC. */
function chunkOf(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crcOf(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, crc]);
}

/** An 8-bit RGBA PNG with the given filtered scanlines (`interlace` 1: Adam7). */
function pngOf(width: number, height: number, scanlines: Buffer, interlace: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, interlace], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunkOf('IHDR', ihdr), chunkOf('IDAT', deflateSync(scanlines)), chunkOf('IEND', Buffer.alloc(0))]);
}

/** The scanlines of an Adam7-interlaced RGBA picture, built pixel by pixel from each pass's pattern. */
function adam7Rows(width: number, height: number): Buffer {
  // The pass each pixel of an 8×8 tile belongs to (PNG specification, 8.2).
  const pattern = ['16462646', '77777777', '56565656', '77777777', '36463646', '77777777', '56565656', '77777777'];
  const rows: Buffer[] = [];
  for (let pass = 1; pass <= 7; pass++) {
    for (let y = 0; y < height; y++) {
      const xs = [...Array(width).keys()].filter((x) => pattern[y % 8]![x % 8] === String(pass));
      // A row of this pass exists only where the pass has pixels in it.
      if (xs.length > 0) rows.push(Buffer.concat([Buffer.from([0]), Buffer.alloc(xs.length * 4, 0x80)]));
    }
  }
  return Buffer.concat(rows);
}
