// An input's declaration as the zod object an MCP tool registers as its inputSchema. Only the
// MCP server and the assistant load this (and with it zod); the library checks with check.ts.
import { z } from 'zod';
import type { Declaration } from './check.js';
import type { Field, Shape } from './fields.js';

/**
 * The JSON shape of the input: types, enums, bounds of numbers, defaults and descriptions, with
 * unknown fields refused. What a portable tool schema cannot say (patterns, lengths, NUL, dates
 * as text, "X or null") it leaves to the check, which every call of the library runs and whose
 * words name the field: whatever the check accepts, this accepts, and what this refuses, the
 * check refuses. A nullable field is offered as its plain type, since a portable input schema
 * has no "X or null" (test/mcp/schemas.test.ts).
 */
export function toZod(declaration: Declaration): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(declaration.fields)) shape[key] = fieldSchema(field);
  return z.strictObject(shape);
}

function fieldSchema(field: Field<unknown>): z.ZodType {
  let schema: z.ZodType = shapeSchema(field.shape);
  if (field.presence === 'optional') schema = schema.optional();
  if (field.presence === 'default') schema = schema.default(field.fallback! as never);
  if (field.description !== undefined) schema = schema.describe(field.description);
  return schema;
}

function shapeSchema(shape: Shape): z.ZodType {
  switch (shape.type) {
    case 'string':
      return z.string();
    case 'integer':
      return z.number().int().min(shape.min).max(shape.max);
    case 'number':
      return z.number().min(shape.min).max(shape.max);
    case 'boolean':
      return z.boolean();
    case 'enum':
      return z.enum(shape.values);
    case 'array':
      return z.array(shapeSchema(shape.of.shape));
    case 'record':
      return z.looseObject({});
  }
}
