import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ErrorJson, EventJson, RunAcceptedJson, RunDetailJson, RunJson, RunSpansJson, RunStateJson, RunSummaryJson, SpanJson } from '../../src/index.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The README's section on the JSON shapes, up to the next section. */
function jsonSection(): string {
  const start = readme.indexOf('## JSON output');
  expect(start, 'README.md has a "## JSON output" section').toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

/** The section's bullet that documents a shape: the list item that starts with `- \`Name\``, up to the next item or paragraph. */
function bulletOf(section: string, name: string): string {
  const lines = section.split('\n');
  const first = lines.findIndex((line) => line.startsWith(`- \`${name}\``));
  if (first === -1) return '';
  const rest = lines.slice(first + 1);
  const stop = rest.findIndex((line) => line.startsWith('- ') || line.trim() === '' || line.startsWith('```'));
  return [lines[first]!, ...(stop === -1 ? rest : rest.slice(0, stop))].join(' ');
}

/** The words inside the code spans of a text: the field names it names as code. */
function codeWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const [, span] of text.matchAll(/`([^`]+)`/g)) for (const word of span!.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) words.add(word);
  return words;
}

const fields = (schema: z.ZodObject) => Object.keys(schema.shape).filter((key) => key !== 'schemaVersion');

/** Each shape the CLI's --json and the HTTP API print, and the fields its bullet must name (a detail's: those beyond the summary). */
const SHAPES: Array<[string, string[]]> = [
  ['RunJson', fields(RunJson)],
  ['RunAcceptedJson', fields(RunAcceptedJson)],
  ['RunSummaryJson', fields(RunSummaryJson)],
  ['RunDetailJson', fields(RunDetailJson).filter((key) => !(key in RunSummaryJson.shape))],
  ['RunStateJson', fields(RunStateJson)],
  ['RunSpansJson', [...fields(RunSpansJson), ...fields(SpanJson)]],
  ['EventJson', fields(EventJson)],
  ['ErrorJson', [...fields(ErrorJson), ...Object.keys(ErrorJson.shape.error.shape)]],
];

describe('the JSON shapes as the README documents them', () => {
  it('says every object carries schemaVersion and names the current version', () => {
    const section = jsonSection();
    expect(section).toContain('`schemaVersion`');
    expect(section).toMatch(/`JSON_SCHEMA_VERSION` = 1\b/);
  });

  it.each(SHAPES)('documents %s with every field of its schema, and lists it in the table of commands and routes', (name, keys) => {
    const section = jsonSection();
    const bullet = bulletOf(section, name);
    expect(bullet, `README.md's JSON section has a bullet "- \`${name}\`: …"`).not.toBe('');
    const named = codeWords(bullet);
    expect(keys.filter((key) => !named.has(key)), `fields of ${name} its README bullet does not name`).toEqual([]);
    expect(section, `${name} in the table of which commands and routes print it`).toMatch(new RegExp(`^\\| \`${name}\``, 'm'));
  });
});
