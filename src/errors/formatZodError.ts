import type { z } from 'zod';

/** One line naming each invalid field and what it must be: `model: must not be empty; tools.0: …`. */
export function formatZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    })
    .join('; ');
}
