import { Ajv } from 'ajv';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempBrain, type TempBrain } from '../helpers.js';
import { connectInMemory, type Connected } from './helpers.js';

/*
 * Schema portability, in place of the MCP Inspector's strict check (not available offline).
 * What a strict client (Claude, OpenAI, Gemini, Cursor…) may reject, checked on the live
 * tools/list answer:
 * - names: snake_case, at most 64 characters (the common ^[a-zA-Z0-9_-]{1,64}$ rule);
 * - each tool: title, short description, input AND output schema, the three annotation hints;
 * - every schema: `type: "object"` at the top, no `$ref`/`$defs`/`definitions`/`$id` anywhere;
 * - input schemas: only a plain keyword set (type, properties, required, additionalProperties,
 *   items, enum, default, minimum, maximum, description, $schema): no anyOf/oneOf/allOf/not,
 *   no `format`, no `propertyNames`/`patternProperties`, no union `type` arrays; unknown fields
 *   refused (`additionalProperties: false`); every property described; `required` names only
 *   declared properties;
 * - output schemas: the same minus bounds, plus "X or null" (`anyOf` or a two-type array);
 * - every schema compiles under Ajv's strict mode (unknown keywords, ambiguous types fail).
 */

const TOOLS = [
  'send_message',
  'poll_inbox',
  'read_inbox',
  'ack_message',
  'get_thread',
  'list_threads',
  'remember',
  'create_atom',
  'link_atoms',
  'search',
  'find_provenance',
  'insights',
  'recent',
];

const INPUT_KEYWORDS = new Set([
  '$schema',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'default',
  'minimum',
  'maximum',
  'description',
]);
const OUTPUT_KEYWORDS = new Set([
  '$schema',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'description',
]);

type Schema = Record<string, any>;

/** Every (sub)schema with its JSON pointer. */
function* walk(schema: Schema, path = '#'): Generator<[string, Schema]> {
  yield [path, schema];
  for (const [name, sub] of Object.entries(schema.properties ?? {}))
    yield* walk(sub as Schema, `${path}/properties/${name}`);
  if (schema.items && typeof schema.items === 'object') yield* walk(schema.items, `${path}/items`);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
    yield* walk(schema.additionalProperties, `${path}/additionalProperties`);
  for (const [i, sub] of (schema.anyOf ?? []).entries())
    yield* walk(sub as Schema, `${path}/anyOf/${i}`);
}

/** Problems of one schema, as "pointer: what", so a failure says where to look. */
function problems(schema: Schema, kind: 'input' | 'output'): string[] {
  const allowed = kind === 'input' ? INPUT_KEYWORDS : OUTPUT_KEYWORDS;
  const out: string[] = [];
  if (schema.type !== 'object') out.push('#: top-level type must be "object"');
  if (typeof schema.properties !== 'object') out.push('#: must declare properties');
  const text = JSON.stringify(schema);
  for (const banned of ['$ref', '$defs', 'definitions', '$id'])
    if (text.includes(`"${banned}"`)) out.push(`#: uses ${banned}`);
  for (const [path, sub] of walk(schema)) {
    for (const key of Object.keys(sub))
      if (!allowed.has(key)) out.push(`${path}: keyword "${key}" is not portable`);
    if (Array.isArray(sub.type)) {
      const nullable = kind === 'output' && sub.type.length === 2 && sub.type.includes('null');
      if (!nullable) out.push(`${path}: union type ${JSON.stringify(sub.type)}`);
    }
    if (sub.anyOf) {
      const ok = sub.anyOf.length === 2 && sub.anyOf.some((s: Schema) => s.type === 'null');
      if (!ok) out.push(`${path}: anyOf other than "X or null"`);
    }
    for (const name of sub.required ?? [])
      if (!(name in (sub.properties ?? {}))) out.push(`${path}: required "${name}" not declared`);
  }
  if (kind === 'input') {
    if (schema.additionalProperties !== false) out.push('#: must refuse unknown fields');
    for (const [name, prop] of Object.entries<Schema>(schema.properties ?? {}))
      if (!prop.description?.trim()) out.push(`#/properties/${name}: has no description`);
  }
  return out;
}

let t: TempBrain;
let c: Connected;
let tools: Tool[];
let listing: string;
beforeAll(async () => {
  t = await tempBrain();
  c = await connectInMemory(t.brain, { agent: 'alice' });
  const result = await c.client.listTools();
  tools = result.tools;
  listing = JSON.stringify(result);
});
afterAll(async () => {
  await c.close();
  t.cleanup();
});

describe('tools/list', () => {
  it('offers exactly the thirteen tools, by their snake_case names', () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) expect(tool.name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
  });

  // Every client pays the listing in its context: thirteen tools, with attachments, time filters,
  // event time and the archived filter among their fields, in about 4K tokens.
  it('stays within 17,000 characters (about 4K tokens of every client context)', () => {
    expect(listing.length).toBeLessThanOrEqual(17_000);
    expect(listing.length).toBeGreaterThan(1_000); // the measure is of the real listing
  });

  it('gives every tool a title, a short description, both schemas and the three hints', () => {
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description!.length, tool.name).toBeGreaterThan(10);
      expect(tool.description!.length, tool.name).toBeLessThanOrEqual(200);
      expect(tool.outputSchema, tool.name).toBeDefined();
      const a = tool.annotations!;
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint'] as const)
        expect(typeof a[hint], `${tool.name} ${hint}`).toBe('boolean');
    }
  });

  it('marks reading tools read-only and no tool destructive', () => {
    const readOnly = tools.filter((tool) => tool.annotations!.readOnlyHint).map((x) => x.name);
    expect(readOnly.sort()).toEqual(
      [
        'poll_inbox',
        'get_thread',
        'list_threads',
        'search',
        'find_provenance',
        'insights',
        'recent',
      ].sort(),
    );
    expect(tools.filter((tool) => tool.annotations!.destructiveHint)).toEqual([]);
  });

  it('has portable input and output schemas', () => {
    const found = tools.flatMap((tool) => [
      ...problems(tool.inputSchema as Schema, 'input').map((p) => `${tool.name} input ${p}`),
      ...problems(tool.outputSchema as Schema, 'output').map((p) => `${tool.name} output ${p}`),
    ]);
    expect(found).toEqual([]);
  });

  it('leaves every object of every output schema open to fields added later', () => {
    // A closed object (zod's z.object or strict) makes every call fail in clients that validate
    // structuredContent as soon as the library adds a field (issue 12: search's `retrievers`).
    const closed = tools.flatMap((tool) =>
      [...walk(tool.outputSchema as Schema)]
        .filter(([, sub]) => sub.type === 'object' && sub.additionalProperties === false)
        .map(([path]) => `${tool.name} ${path}`),
    );
    expect(closed).toEqual([]);
  });

  it('compiles every schema under Ajv strict mode', () => {
    const strictInput = new Ajv({ strict: true });
    const strictOutput = new Ajv({ strict: true, allowUnionTypes: true });
    for (const tool of tools) {
      expect(() => strictInput.compile(tool.inputSchema), `${tool.name} input`).not.toThrow();
      expect(() => strictOutput.compile(tool.outputSchema!), `${tool.name} output`).not.toThrow();
    }
  });

  it('the portability check itself catches what it claims to', () => {
    const bad = {
      type: 'object',
      properties: {
        a: { type: 'string', format: 'uri' },
        b: { $ref: '#/$defs/x' },
        c: { type: ['string', 'null'], description: 'c' },
      },
      required: ['d'],
    };
    const found = problems(bad, 'input').join('\n');
    for (const expected of [
      'keyword "format"',
      'uses $ref',
      'union type',
      'required "d" not declared',
      'refuse unknown fields',
      '#/properties/a: has no description',
    ])
      expect(found).toContain(expected);
  });
});
