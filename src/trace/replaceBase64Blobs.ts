/** The shortest run of base64 characters taken for file content (≥ 192 bytes), not a word or an id. */
const BLOB_MIN = 256;

/** True for the characters of base64 text: A–Z, a–z, 0–9, + and /. */
function isBase64(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 43 || code === 47;
}

/**
 * `text` with every run of 256 or more base64 characters (with up to two `=` after it) replaced by
 * `replacement`: what `text.replace(/[A-Za-z0-9+/]{256,}={0,2}/g, replacement)` gives, in one pass
 * over the text. The regular expression overflows V8's stack on a run of several megabytes (a
 * document or picture put into a run's state); this does not.
 */
export function replaceBase64Blobs(text: string, replacement: string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    if (!isBase64(text.charCodeAt(i))) {
      i += 1;
      continue;
    }
    const start = i;
    while (i < text.length && isBase64(text.charCodeAt(i))) i += 1;
    if (i - start < BLOB_MIN) continue;
    if (text.charCodeAt(i) === 61) i += text.charCodeAt(i + 1) === 61 ? 2 : 1;
    out += text.slice(copied, start) + replacement;
    copied = i;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
