import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ToolError } from 'switchboard/engine';
import { z } from 'zod';

/** One knowledge-base document: an id such as `KB001`, a title and a short text. */
export const PolicyDocument = z.object({
  id: z.string().regex(/^KB\d{3}$/, 'document ids look like KB001'),
  title: z.string().trim().min(1),
  text: z.string().trim().min(1),
});
/** One knowledge-base document (see {@link PolicyDocument}). */
export type PolicyDocument = z.infer<typeof PolicyDocument>;

/** The folder the knowledge base ships in: `specialists/policy/kb/`, one `KBnnn.md` file per document. */
export const KB_DIR = fileURLToPath(new URL('./kb/', import.meta.url));

/** Parses one `KBnnn.md` file: a `# Title` line, then the text. */
function parseDocument(file: string, source: string): PolicyDocument {
  const [first = '', ...rest] = source.split(/\r?\n/);
  const title = /^#\s+(.+)$/.exec(first)?.[1];
  const parsed = PolicyDocument.safeParse({ id: file.replace(/\.md$/, ''), title, text: rest.join('\n').replace(/\s+/g, ' ') });
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => i.message).join('; ');
    throw new ToolError(`knowledge-base file ${file} is malformed (${why}); start it with "# Title" and name it KBnnn.md`, { code: 'tool_failed' });
  }
  return parsed.data;
}

/**
 * Reads the knowledge base shipped with the project, sorted by id.
 *
 * @example
 * loadPolicyDocuments()[0]; // { id: 'KB001', title: 'Aero headphones and earbuds return policy', text: '…' }
 */
export function loadPolicyDocuments(dir: string = KB_DIR): PolicyDocument[] {
  return readdirSync(dir)
    .filter((file) => /^KB\d{3}\.md$/.test(file))
    .sort()
    .map((file) => parseDocument(file, readFileSync(`${dir}/${file}`, 'utf8')));
}
