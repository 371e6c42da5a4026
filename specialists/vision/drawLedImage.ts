import type { RgbaImage } from './encodePng.js';

/** The LED colours the fixture pictures show. */
export type LedColour = 'red' | 'green';

const LED_RGB: Record<LedColour, [number, number, number]> = { red: [235, 32, 36], green: [40, 200, 90] };

/**
 * Draws a small picture of a charging case with one lit LED: a dark grey case on a light
 * background, the LED a bright disc with a soft glow. Pure arithmetic, so the pixels are always the same.
 *
 * @example
 * encodePng(drawLedImage('red')); // the E02 fixture picture
 */
export function drawLedImage(colour: LedColour, width = 128, height = 80): RgbaImage {
  const rgba = new Uint8Array(width * height * 4);
  const [lr, lg, lb] = LED_RGB[colour];
  const cx = width / 2;
  const cy = height / 2;
  const radius = Math.min(width, height) / 8;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inCase = x >= 8 && x < width - 8 && y >= 8 && y < height - 8;
      let [r, g, b] = inCase ? [48, 50, 56] : [228, 230, 234];
      const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
      if (d <= radius) {
        [r, g, b] = [lr, lg, lb];
      } else if (inCase && d <= radius * 2.5) {
        const glow = 1 - (d - radius) / (radius * 1.5);
        r = Math.round(r + (lr - r) * glow * 0.6);
        g = Math.round(g + (lg - g) * glow * 0.6);
        b = Math.round(b + (lb - b) * glow * 0.6);
      }
      rgba.set([r, g, b, 255], (y * width + x) * 4);
    }
  }
  return { width, height, rgba };
}
