import { z } from 'zod';
import { formatZodError } from '../../src/index.js';
import type { ToolResultBlock, ToolSchema, ToolUseBlock } from '../models/types.js';
import { reachOf } from '../permissions/trust.js';
import { untrusted } from '../untrusted.js';
import type { Tool, ToolContext } from './types.js';

/** Each tool's schema as the model sees it, made once: converting zod to JSON Schema every turn
 * cost more than the rest of the prompt. */
const schemaOf = new WeakMap<Tool, ToolSchema>();

/** The tools as the model sees them: name, description, and the JSON Schema of their input. */
export function toolSchemas(tools: readonly Tool[]): ToolSchema[] {
  return tools.map((t) => {
    let schema = schemaOf.get(t);
    if (!schema) {
      schema = { name: t.name, description: t.description, input_schema: inputSchemaOf(t) };
      schemaOf.set(t, schema);
    }
    return schema;
  });
}

function inputSchemaOf(t: Tool): ToolSchema['input_schema'] {
  if (t.inputSchema) return t.inputSchema;
  const { $schema: _drop, ...schema } = z.toJSONSchema(t.schema, { io: 'input' }) as Record<
    string,
    unknown
  >;
  return slim(schema) as ToolSchema['input_schema'];
}

/**
 * Bounds the model has no use for: a text's or a list's length limits guard the tool, and zod
 * still checks them on every call (a breach is an error result naming the field). Every request
 * carries every tool's schema, so they cost bytes on every turn; ranges of numbers, enums,
 * required fields and descriptions stay, since they say what a good call is.
 */
const UNSENT = new Set(['minLength', 'maxLength', 'minItems', 'maxItems']);

function slim(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(slim);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && value !== null && typeof value === 'object') {
      // Under `properties` the keys are field names, whatever they are called.
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, slim(s)]));
    } else if (!UNSENT.has(key)) {
      out[key] = slim(value);
    }
  }
  return out;
}

/**
 * Run one tool call and answer it as a tool_result: an unknown tool, an input its schema refuses
 * (the message names the field) and a tool that throws are all error results the model reads.
 */
export async function runToolCall(
  tools: readonly Tool[],
  call: ToolUseBlock,
  ctx: ToolContext,
): Promise<ToolResultBlock> {
  const fail = (content: string): ToolResultBlock => ({
    type: 'tool_result',
    tool_use_id: call.id,
    content,
    is_error: true,
  });
  const tool = tools.find((t) => t.name === call.name);
  if (!tool)
    return fail(`unknown tool ${call.name}; the tools are ${tools.map((t) => t.name).join(', ')}`);
  const parsed = tool.schema.safeParse(call.input);
  if (!parsed.success) return fail(`invalid input: ${formatZodError(parsed.error)}`);
  try {
    const out = await tool.run(parsed.data, ctx);
    // Unless the tool says otherwise for this answer, its reach says whether it is foreign.
    const foreign = out.untrusted ?? reachOf(tool).foreignOutput;
    const content = foreign ? untrusted(`tool:${tool.name}`, out.content) : out.content;
    return {
      type: 'tool_result',
      tool_use_id: call.id,
      content,
      ...(out.isError ? { is_error: true } : {}),
    };
  } catch (err) {
    return fail(`${tool.name} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
