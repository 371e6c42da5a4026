import { z } from 'zod';

/** The longest run search text accepted, in characters. */
export const MAX_SEARCH_CHARS = 200;

/**
 * The free text runs are searched for (`runs --search`, `GET /api/runs?search=`): not blank, no
 * NUL or other control character, well-formed Unicode, at most {@link MAX_SEARCH_CHARS}
 * characters. It is matched literally (`%`, `_`, `\` and quotes are plain characters) against the
 * run id, the input the run started with and its answer, ignoring the case of A–Z.
 */
export const RunSearchText = z
  .string({ error: 'search must be text' })
  .refine((text) => text.trim() !== '', 'search must not be blank')
  // eslint-disable-next-line no-control-regex
  .refine((text) => !/[\u0000-\u001f\u007f]/.test(text), 'search must not contain control characters (NUL, tab, newline…)')
  .refine((text) => !/[\uD800-\uDFFF]/u.test(text), 'search must be well-formed Unicode (no lone surrogate)')
  .refine((text) => text.length <= MAX_SEARCH_CHARS, { error: (issue) => `search must be at most ${MAX_SEARCH_CHARS} characters; received ${String((issue.input as string).length)}` });
