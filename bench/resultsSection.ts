import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** bench/RESULTS.md: every benchmark owns one marked section of it and rewrites only that. */
export const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

/** Replaces (or appends) the section `name` of RESULTS.md, keeping the other benchmarks' sections. */
export function writeResultsSection(name: string, markdown: string): void {
  const start = `<!-- section:${name} -->`;
  const end = `<!-- /section:${name} -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const current = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : '';
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next = from >= 0 && to > from ? `${current.slice(0, from)}${block}${current.slice(to + end.length)}` : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(RESULTS_FILE, `${next.trim()}\n`);
}
