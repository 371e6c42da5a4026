import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError } from './InputError.js';
import { MAX_IMAGE_BYTES, imageMediaType, type ImageMediaType } from './imageMediaType.js';

/** A picture read from a file: where it is, its type (from its bytes) and its bytes. */
export interface ImageFile {
  /** The absolute path. */
  path: string;
  mediaType: ImageMediaType;
  bytes: Buffer;
}

/** Options of {@link readImageFile}. */
export interface ReadImageFileOptions {
  /** Largest accepted file in bytes (default {@link MAX_IMAGE_BYTES}). */
  maxBytes?: number;
  /** What the path is called in error messages (default `--image`). */
  name?: string;
}

const TYPES = 'PNG, JPEG, GIF or WebP';

/** What a non-regular file is, for the message. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Reads a picture the user named (`--image`), refusing with an `InputError` that names the path
 * and the rule: an empty path, a missing or unreadable file, anything but a regular file
 * (directories, FIFOs, devices such as `/dev/zero`), an empty or oversized file, or bytes that are
 * not a PNG, JPEG, GIF or WebP image. It never blocks on a FIFO and never holds more than
 * `maxBytes + 1` bytes: the file is checked with `stat` first, opened non-blocking, checked again
 * on the open handle (it may have been swapped), and read with a hard bound (it may be growing).
 *
 * @example
 * const { mediaType, bytes } = await readImageFile('specialists/vision/fixtures/e02-red-led.png');
 */
export async function readImageFile(path: string, options: ReadImageFileOptions = {}): Promise<ImageFile> {
  const name = options.name ?? '--image';
  const maxBytes = options.maxBytes ?? MAX_IMAGE_BYTES;
  if (path.trim() === '') throw new InputError(`${name}: the path is empty; pass the file of a ${TYPES} picture`);
  const file = resolve(path);
  const refuse = (rule: string, cause?: unknown) => new InputError(`${name} ${JSON.stringify(path)}: ${rule}`, cause);
  const st = await stat(file).catch((error: NodeJS.ErrnoException) => {
    const reason = error.code === 'ENOENT' ? 'no such file' : error.code === 'EACCES' ? 'permission denied' : error.code === 'ENOTDIR' ? 'a part of the path is not a directory' : `cannot be read (${error.code ?? 'error'})`;
    throw refuse(`${reason}; pass the file of a ${TYPES} picture`, error);
  });
  if (!st.isFile()) throw refuse(`is ${kindOf(st)}, not a picture file; pass the file of a ${TYPES} picture`);
  if (st.size > maxBytes) throw refuse(`is ${st.size} bytes; at most ${maxBytes} are accepted, send a smaller picture`);
  // O_NONBLOCK: if the path was swapped for a FIFO since the stat, opening it must not wait for a writer.
  const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch((error: NodeJS.ErrnoException) => {
    throw refuse(`cannot be opened (${error.code ?? 'error'})`, error);
  });
  let bytes: Buffer;
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw refuse(`is ${kindOf(opened)}, not a picture file; pass the file of a ${TYPES} picture`);
    const buffer = Buffer.alloc(Math.min(maxBytes, Math.max(opened.size, st.size)) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    // More bytes than the stat said (up to the bound plus one): the file is growing or is not what
    // it claimed to be; refuse it rather than read on.
    if (length === buffer.length) {
      throw refuse(length > maxBytes ? `has more than ${maxBytes} bytes; at most ${maxBytes} are accepted` : 'grew while being read; pass a file that is not being written');
    }
    bytes = buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
  if (bytes.length === 0) throw refuse(`is empty; pass the file of a ${TYPES} picture`);
  const mediaType = imageMediaType(bytes);
  if (mediaType === undefined) throw refuse(`is not a ${TYPES} image (its first bytes are no image signature, whatever its name says); pass a picture file`);
  return { path: file, mediaType, bytes };
}
