import { z } from 'zod';
import type { ModelResponseFormat } from '../model/ModelClient.js';
import { AgentDefinitionError } from '../errors/AgentDefinitionError.js';
import { formatZodError } from '../errors/formatZodError.js';

type JsonSchema = Record<string, unknown>;
const isSchema = (v: unknown): v is JsonSchema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Rebuilds a schema with `visit` applied to it and to every subschema below it (properties, items, unions, definitions). */
function mapSchema(node: JsonSchema, visit: (schema: JsonSchema) => JsonSchema): JsonSchema {
  const out: JsonSchema = { ...node };
  const mapRecord = (key: string) => {
    const value = out[key];
    if (isSchema(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isSchema(v) ? mapSchema(v, visit) : v]));
  };
  const mapList = (key: string) => {
    const value = out[key];
    if (Array.isArray(value)) out[key] = value.map((v) => (isSchema(v) ? mapSchema(v, visit) : v));
  };
  mapRecord('properties');
  mapRecord('$defs');
  mapRecord('definitions');
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) mapList(key);
  for (const key of ['items', 'additionalProperties', 'not']) {
    const value = out[key];
    if (isSchema(value)) out[key] = mapSchema(value, visit);
  }
  return visit(out);
}

/** True when every object lists all its properties as required and allows no others (what a strict server enforces). */
function strictCompatible(schema: JsonSchema): boolean {
  let ok = true;
  mapSchema(schema, (node) => {
    if (node['type'] === 'object' || 'properties' in node) {
      const properties = isSchema(node['properties']) ? Object.keys(node['properties']) : [];
      const required = Array.isArray(node['required']) ? node['required'] : [];
      if (!isSchema(node['properties']) || !properties.every((key) => required.includes(key)) || node['additionalProperties'] !== false) ok = false;
    }
    return node;
  });
  return ok;
}

/** Closes every object schema that says nothing of extra keys (`additionalProperties: false`); zod objects drop them anyway. */
function closeObjects(schema: JsonSchema): JsonSchema {
  return mapSchema(schema, (node) => (node['type'] === 'object' && node['additionalProperties'] === undefined ? { ...node, additionalProperties: false } : node));
}

/**
 * The response format for an agent's `outputSchema`: the JSON schema of what the model must write
 * (zod's input side, so defaulted fields may be left out). `strict` defaults to true when the server
 * can enforce the schema exactly (every object property required), else false.
 */
export function responseFormatFor(agent: string, schema: z.ZodType, strict?: boolean): ModelResponseFormat {
  let json: Record<string, unknown>;
  try {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
    json = closeObjects(rest);
  } catch (error) {
    throw new AgentDefinitionError(
      `new Agent("${agent}"): outputSchema cannot be expressed as JSON schema; use JSON-compatible zod types (no dates, maps, functions or bigints)`,
      error,
    );
  }
  const name = agent.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64) || 'output';
  return { type: 'json_schema', name, schema: json, strict: strict ?? strictCompatible(json) };
}

/** The outcome of checking an answer against an `outputSchema`. */
export type StructuredCheck = { ok: true; value: unknown } | { ok: false; problem: string };

/** Drops one surrounding Markdown code fence, which some servers add around JSON. */
function unfence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(text);
  return fenced === null ? text : fenced[1]!;
}

/** Parses the answer as JSON and checks it against the schema; the problem names what is wrong. */
export function checkStructuredOutput(schema: z.ZodType, text: string | null): StructuredCheck {
  if (text === null || text.trim() === '') return { ok: false, problem: 'the answer was empty, not JSON' };
  let value: unknown;
  try {
    value = JSON.parse(unfence(text));
  } catch (error) {
    const excerpt = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    return { ok: false, problem: `the answer is not JSON (${(error as Error).message}): ${JSON.stringify(excerpt)}` };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { ok: false, problem: `the JSON does not match the schema: ${formatZodError(parsed.error)}` };
  return { ok: true, value: parsed.data };
}

/** The follow-up message of the one repair turn a bad structured answer gets. */
export function repairMessage(problem: string): string {
  return `Your previous answer was rejected: ${problem}. Answer again with only a JSON value that matches the required schema, with no other text.`;
}
