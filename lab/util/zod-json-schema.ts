import { z } from 'zod';

/** A JSON Schema (draft 2020-12), as far as the converter below writes one. */
export type JsonSchema = { [key: string]: unknown };

/**
 * A JSON Schema from a zod schema, for the subset of zod the published
 * schemas use: objects (strict, passthrough, catchall), strings, numbers,
 * integers, booleans, null, literals, enums, arrays, records, unions,
 * optional, nullable, default, readonly, effects (refine/transform: the
 * input's shape) and unknown. Anything else throws, naming the zod type, so
 * a schema never silently publishes less than it checks.
 */
export function toJsonSchema(schema: z.ZodTypeAny): JsonSchema {
  const def = schema._def as { typeName: z.ZodFirstPartyTypeKind; description?: string };
  const out = convert(schema);
  return def.description ? { description: def.description, ...out } : out;
}

function convert(schema: z.ZodTypeAny): JsonSchema {
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, z.ZodTypeAny>;
    const properties = Object.fromEntries(Object.entries(shape).map(([key, value]) => [key, toJsonSchema(value)]));
    const required = Object.entries(shape)
      .filter(([, value]) => !value.isOptional())
      .map(([key]) => key);
    const catchall = schema._def.catchall as z.ZodTypeAny;
    const unknownKeys = schema._def.unknownKeys as 'strip' | 'strict' | 'passthrough';
    const additionalProperties = !(catchall instanceof z.ZodNever) ? toJsonSchema(catchall) : unknownKeys !== 'strict';
    return { type: 'object', properties, required, additionalProperties };
  }
  if (schema instanceof z.ZodString) return { type: 'string' };
  if (schema instanceof z.ZodNumber) {
    return { type: schema._def.checks.some((c: { kind: string }) => c.kind === 'int') ? 'integer' : 'number' };
  }
  if (schema instanceof z.ZodBoolean) return { type: 'boolean' };
  if (schema instanceof z.ZodNull) return { type: 'null' };
  if (schema instanceof z.ZodLiteral) return { const: schema.value };
  if (schema instanceof z.ZodEnum) return { enum: [...schema.options] };
  if (schema instanceof z.ZodArray) return { type: 'array', items: toJsonSchema(schema.element) };
  if (schema instanceof z.ZodRecord) return { type: 'object', additionalProperties: toJsonSchema(schema.valueSchema) };
  if (schema instanceof z.ZodUnion || schema instanceof z.ZodDiscriminatedUnion) {
    return { anyOf: (schema.options as z.ZodTypeAny[]).map(toJsonSchema) };
  }
  if (schema instanceof z.ZodOptional) return toJsonSchema(schema.unwrap());
  if (schema instanceof z.ZodNullable) return { anyOf: [toJsonSchema(schema.unwrap()), { type: 'null' }] };
  if (schema instanceof z.ZodDefault) return toJsonSchema(schema._def.innerType);
  if (schema instanceof z.ZodReadonly) return toJsonSchema(schema._def.innerType);
  if (schema instanceof z.ZodEffects) return toJsonSchema(schema.innerType());
  if (schema instanceof z.ZodUnknown || schema instanceof z.ZodAny) return {};
  throw new Error(`toJsonSchema: zod type ${(schema._def as { typeName: string }).typeName} is not supported`);
}
