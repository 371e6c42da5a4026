import { loadPolicyDocuments } from '../../../specialists/policy/PolicyDocument.js';
import type { EntitySpan } from './EntitySpan.js';

/** An LED signal as the knowledge base names it: "LED fault code E02 (red blinking)". */
export interface LedSignal {
  code: string;
  colour: string;
  pattern: 'blinking' | 'solid';
}

/** Words customers use for a colour or a pattern, mapped to the knowledge base's words. */
const COLOUR_WORDS: Record<string, string> = { red: 'red', amber: 'amber', orange: 'amber', yellow: 'amber', blue: 'blue', green: 'green', white: 'white' };
const BLINKING = /\b(blink\w*|flash\w*|flicker\w*|pulsing|pulses)\b/i;
const SOLID = /\b(solid|steady|constant\w*|stays? on|continuous\w*|won'?t go off|permanently)\b/i;

let signals: LedSignal[] | null = null;

/** The LED signals of the knowledge base, read from its fault-code titles once. */
export function ledSignals(): LedSignal[] {
  signals ??= loadPolicyDocuments().flatMap((doc) => {
    const m = /fault code (E\d{2}) \(([^)]*)\)/i.exec(doc.title);
    const words = m?.[2]?.toLowerCase().split(/\s+/) ?? [];
    const colour = words.find((w) => Object.values(COLOUR_WORDS).includes(w));
    const pattern = words.includes('solid') ? 'solid' : words.includes('blinking') ? 'blinking' : undefined;
    return m && colour && pattern ? [{ code: m[1]!.toUpperCase(), colour, pattern }] : [];
  });
  return signals;
}

/** `E02`, `e-02`, `E 2`. */
const E_CODE = /\be\s?-?\s?(0?[1-9]|[1-9]\d)\b/gi;
/** `error 2`, `code E1`, `fault E-04`, `error code 03`. */
const WORD_CODE = /\b(?:(?:error|fault)(?:\s+code)?|code)\s*[:#]?\s*(?:e\s?-?\s?)?(0?[1-9])\b/gi;

/**
 * The LED fault codes a message names (`E02`, `error 2`, `code e03`) or describes ("red light
 * blinking" → E02, "flashes orange" → E01, "solid red" → E04), matched against the signals the
 * knowledge base documents. A colour whose pattern is not said matches only when the colour has a
 * single signal.
 *
 * @example
 * readFaultCodes('my case has a red light blinking')[0]?.value; // 'E02'
 */
export function readFaultCodes(text: string): EntitySpan[] {
  const found: EntitySpan[] = [];
  for (const pattern of [WORD_CODE, E_CODE]) {
    for (const m of text.matchAll(pattern)) {
      const [start, end] = [m.index, m.index + m[0].length];
      if (!found.some((f) => start < f.end && end > f.start)) found.push({ kind: 'faultCode', value: `E${m[1]!.padStart(2, '0')}`, start, end });
    }
  }
  found.sort((a, b) => a.start - b.start);
  if (found.length > 0) return found;
  const lower = text.toLowerCase();
  const colours = [...lower.matchAll(/\b[a-z]+\b/g)].flatMap((w) => (COLOUR_WORDS[w[0]] ? [{ colour: COLOUR_WORDS[w[0]]!, at: w.index }] : []));
  const pattern = BLINKING.test(text) ? 'blinking' : SOLID.test(text) ? 'solid' : undefined;
  for (const { colour, at } of colours) {
    const candidates = ledSignals().filter((s) => s.colour === colour && (pattern === undefined || s.pattern === pattern));
    if (candidates.length === 1 && (pattern !== undefined || /\b(led|light|lamp|blink|flash)/i.test(text))) {
      found.push({ kind: 'faultCode', value: candidates[0]!.code, start: at, end: at + colour.length });
      break;
    }
  }
  return found;
}
