/**
 * Splits text into word-sized pieces (each keeps the whitespace after it), so models without a
 * network stream still stream something deterministic. Joining the pieces gives the text back.
 */
export function splitTokens(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/).filter((piece) => piece !== '');
}
