import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PNG_SIGNATURE, VISION_FIXTURES_DIR, crc32, drawLedImage, encodePng, imageMimeType, imageRegistry, sha256Of } from '../../../specialists/index.js';

/** A minimal PNG reader for what encodePng writes: checks every chunk CRC, returns size and RGBA pixels. */
function decodePng(png: Buffer): { width: number; height: number; rgba: Buffer } {
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  let at = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('ascii');
    const data = png.subarray(at + 8, at + 8 + length);
    expect(png.readUInt32BE(at + 8 + length)).toBe(crc32(png.subarray(at + 4, at + 8 + length)));
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect([...data.subarray(8)]).toEqual([8, 6, 0, 0, 0]);
    }
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  const rows = inflateSync(Buffer.concat(idat));
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    expect(rows[y * (width * 4 + 1)]).toBe(0);
    rows.copy(rgba, y * width * 4, y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1));
  }
  return { width, height, rgba };
}

describe('encodePng', () => {
  it('writes a valid PNG whose pixels read back unchanged', () => {
    const image = drawLedImage('green', 9, 5);
    const decoded = decodePng(encodePng(image));
    expect(decoded.width).toBe(9);
    expect(decoded.height).toBe(5);
    expect(decoded.rgba.equals(Buffer.from(image.rgba))).toBe(true);
  });

  it('computes the same CRC-32 as the PNG specification example', () => {
    expect(crc32(Buffer.from('IEND', 'ascii'))).toBe(0xae426082);
  });

  it('refuses pixel data of the wrong length', () => {
    expect(() => encodePng({ width: 2, height: 2, rgba: new Uint8Array(3) })).toThrow(/expected 2×2×4 = 16 RGBA bytes; received 3/);
  });
});

describe('the fixture image registry', () => {
  it('lists the E02 red LED picture with its fault code', () => {
    const e02 = imageRegistry().find((entry) => entry.faultCodes.includes('E02'));
    expect(e02).toMatchObject({ file: 'e02-red-led.png', text: 'LED fault code E02: red blinking' });
  });

  it('holds the SHA-256 of every shipped picture', () => {
    for (const entry of imageRegistry()) {
      const bytes = readFileSync(`${VISION_FIXTURES_DIR}${entry.file}`);
      expect(sha256Of(bytes)).toBe(entry.sha256);
      expect(imageMimeType(bytes)).toBe('image/png');
    }
  });

  it('ships the E02 picture as a real PNG of a red LED drawn by drawLedImage', () => {
    const decoded = decodePng(readFileSync(`${VISION_FIXTURES_DIR}e02-red-led.png`));
    const drawn = drawLedImage('red');
    expect([decoded.width, decoded.height]).toEqual([drawn.width, drawn.height]);
    expect(decoded.rgba.equals(Buffer.from(drawn.rgba))).toBe(true);
    const centre = ((decoded.height / 2) * decoded.width + decoded.width / 2) * 4;
    expect([...decoded.rgba.subarray(centre, centre + 4)]).toEqual([235, 32, 36, 255]);
  });
});
