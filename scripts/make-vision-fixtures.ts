/**
 * Regenerates the vision fixture pictures and their registry (content hashes):
 *
 *   npx tsx scripts/make-vision-fixtures.ts
 */
import { writeFileSync } from 'node:fs';
import { drawLedImage, type LedColour } from '../specialists/vision/drawLedImage.js';
import { encodePng } from '../specialists/vision/encodePng.js';
import { VISION_FIXTURES_DIR, sha256Of, type RegisteredImage } from '../specialists/vision/imageRegistry.js';

const fixtures: Array<{ file: string; colour: LedColour; text: string; faultCodes: string[] }> = [
  { file: 'e02-red-led.png', colour: 'red', text: 'LED fault code E02: red blinking', faultCodes: ['E02'] },
  { file: 'green-led.png', colour: 'green', text: 'LED solid green: the charging case is fully charged; no fault code', faultCodes: [] },
];

const registry: RegisteredImage[] = fixtures.map(({ file, colour, text, faultCodes }) => {
  const png = encodePng(drawLedImage(colour));
  writeFileSync(`${VISION_FIXTURES_DIR}${file}`, png);
  return { sha256: sha256Of(png), file, text, faultCodes };
});
writeFileSync(`${VISION_FIXTURES_DIR}registry.json`, `${JSON.stringify(registry, null, 2)}\n`);
process.stdout.write(`wrote ${registry.map((r) => `${r.file} ${r.sha256.slice(0, 12)}`).join(', ')}\n`);
