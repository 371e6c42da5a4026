import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError, MAX_IMAGE_BYTES, imageMediaType, readImageFile } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-image-'));
const png = readFileSync('specialists/vision/fixtures/e02-red-led.png');
const file = (name: string, bytes: Buffer | string) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

async function refusal(path: string, options?: Parameters<typeof readImageFile>[1]): Promise<string> {
  const error = await readImageFile(path, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, path).toBeInstanceOf(InputError);
  return (error as InputError).message;
}

describe('readImageFile', () => {
  it('reads a picture and tells its type by its bytes, not its name', async () => {
    const read = await readImageFile(file('led.bin', png));
    expect(read).toMatchObject({ path: join(dir, 'led.bin'), mediaType: 'image/png' });
    expect(read.bytes.equals(png)).toBe(true);
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);
    expect((await readImageFile(file('photo.png', jpeg))).mediaType).toBe('image/jpeg');
    expect((await readImageFile(file('a.gif', Buffer.from('GIF89a\x01\x00', 'latin1')))).mediaType).toBe('image/gif');
    expect((await readImageFile(file('a.webp', Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1')))).mediaType).toBe('image/webp');
    expect(imageMediaType(Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt ', 'latin1'))).toBeUndefined();
  });

  it('refuses an empty path, a missing file, a directory, devices and a FIFO, naming the path and the rule', async () => {
    expect(await refusal('')).toBe('--image: the path is empty; pass the file of a PNG, JPEG, GIF or WebP picture');
    expect(await refusal('  ', { name: 'scenario "x" image' })).toBe('scenario "x" image: the path is empty; pass the file of a PNG, JPEG, GIF or WebP picture');
    expect(await refusal(join(dir, 'nope.png'))).toBe(`--image "${join(dir, 'nope.png')}": no such file; pass the file of a PNG, JPEG, GIF or WebP picture`);
    expect(await refusal(dir)).toContain('is a directory, not a picture file');
    expect(await refusal('/dev/zero')).toBe('--image "/dev/zero": is a character device, not a picture file; pass the file of a PNG, JPEG, GIF or WebP picture');
    expect(await refusal('/dev/null')).toContain('is a character device');
    const fifo = join(dir, 'pipe.png');
    execFileSync('mkfifo', [fifo]);
    // No writer ever opens the FIFO: a blocking open would hang this test forever.
    expect(await refusal(fifo)).toContain('is a FIFO (named pipe), not a picture file');
    symlinkSync(fifo, join(dir, 'link-to-pipe.png'));
    expect(await refusal(join(dir, 'link-to-pipe.png'))).toContain('is a FIFO (named pipe)');
  });

  it('refuses empty, oversized and non-image files, and proc files whose size lies', async () => {
    expect(await refusal(file('empty.png', ''))).toContain('is empty');
    expect(await refusal(file('notes.png', 'just some text, not a picture'))).toBe(
      `--image "${join(dir, 'notes.png')}": is not a PNG, JPEG, GIF or WebP image (its first bytes are no image signature, whatever its name says); pass a picture file`,
    );
    expect(await refusal(file('big.png', Buffer.concat([png, Buffer.alloc(MAX_IMAGE_BYTES)])))).toContain(`bytes; at most ${MAX_IMAGE_BYTES} are accepted`);
    expect(await refusal(file('small-limit.png', png), { maxBytes: 10 })).toContain(`is ${png.length} bytes; at most 10 are accepted`);
    // /proc files say they are empty regular files, then have bytes: refused, not read on.
    expect(await refusal('/proc/self/status')).toContain('grew while being read');
  });
});
