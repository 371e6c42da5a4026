import type { Context } from 'hono';
import type { z } from 'zod';
import { formatZodError } from '../errors/formatZodError.js';
import { ServerError } from './ServerError.js';
import { mediaTypeOf } from './requestGuard.js';

/** A multipart form as a plain object: text fields as strings, a file field as `{ mediaType, base64, name }`. */
async function formObject(c: Context): Promise<Record<string, unknown>> {
  const form = await c.req.raw.formData();
  const out: Record<string, unknown> = {};
  for (const [key, value] of form.entries()) {
    if (typeof value === 'string') out[key] = value;
    else if (value instanceof File) {
      // An empty file input (no file chosen) sends an empty part: treat it as absent.
      if (value.size === 0 && value.name === '') continue;
      out[key] = { mediaType: value.type, base64: Buffer.from(await value.arrayBuffer()).toString('base64'), ...(value.name ? { name: value.name } : {}) };
    }
  }
  return out;
}

/**
 * Reads a request body (JSON, or multipart/form-data with files as `{ mediaType, base64, name }`;
 * the request guard lets nothing else through) and parses it with `schema`; anything else is a 400
 * that names each wrong field.
 */
export async function readBody<S extends z.ZodType>(c: Context, schema: S, what: string): Promise<z.infer<S>> {
  let raw: unknown;
  if (mediaTypeOf(c) === 'multipart/form-data') {
    raw = await formObject(c).catch((cause: unknown) => {
      throw new ServerError(`${what}: the form could not be read (${(cause as Error).message})`, { code: 'bad_request', cause });
    });
  } else {
    const text = await c.req.text();
    if (text.trim() === '') raw = {};
    else {
      try {
        raw = JSON.parse(text);
      } catch {
        throw new ServerError(`${what}: the body must be JSON (or multipart/form-data); it does not parse as JSON`, { code: 'bad_request' });
      }
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ServerError(`${what}: ${formatZodError(parsed.error)}`, { code: 'bad_request' });
  return parsed.data;
}
