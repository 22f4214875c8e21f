// An input's declaration as the zod object an MCP tool registers as its inputSchema. The caller
// passes its zod: the library checks with check.ts and never loads zod itself, so a one-shot
// command that imports the library's face does not pay for it.
import type * as Zod from 'zod';
import type { Declaration } from './check.js';
import { INVALID, type Field, type Shape } from './fields.js';

type Z = typeof Zod.z;

/**
 * The JSON shape of the input: types, enums, bounds of numbers, defaults and descriptions, with
 * unknown fields refused. What a portable tool schema cannot say (patterns, lengths, NUL, dates
 * as text, "X or null") it leaves to the check, which every call of the library runs and whose
 * words name the field: whatever the check accepts, this accepts, and what this refuses, the
 * check refuses. A nullable field is offered as its plain type, since a portable input schema
 * has no "X or null" (test/mcp/schemas.test.ts).
 */
export function toZod(declaration: Declaration, z: Z): Zod.ZodObject {
  const shape: Record<string, Zod.ZodType> = {};
  for (const [key, field] of Object.entries(declaration.fields)) shape[key] = fieldSchema(field, z);
  return z.strictObject(shape);
}

function fieldSchema(field: Field<unknown>, z: Z): Zod.ZodType {
  let schema: Zod.ZodType = shapeSchema(field.shape, z);
  if (field.presence === 'optional') schema = schema.optional();
  if (field.presence === 'default') schema = schema.default(field.fallback! as never);
  if (field.description !== undefined) schema = schema.describe(field.description);
  return schema;
}

function shapeSchema(shape: Shape, z: Z): Zod.ZodType {
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
      return z.array(shapeSchema(shape.of.shape, z));
    case 'record':
      return z.looseObject({});
  }
}

/**
 * One field as a zod schema that checks what the kit checks, in the kit's words: for the zod
 * schemas of adapters' own settings (an agent's name in the assistant's config).
 */
export function zodField<T>(field: Field<T, unknown>, z: Z): Zod.ZodType<T> {
  return z.unknown().transform((value, ctx) => {
    const checked = field.parse(value, '', (_path, words) =>
      ctx.addIssue({ code: 'custom', message: words }),
    );
    return checked === INVALID ? z.NEVER : checked;
  });
}
