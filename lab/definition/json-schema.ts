import { zodToJsonSchema } from 'zod-to-json-schema';
import { labSchema } from './schema.js';

/**
 * The copy of the lab definition's JSON Schema kept in the repository, for
 * editors: every file in labs/ names it in its first line
 * (`# yaml-language-server: $schema=../lab/definition/lab.schema.json`).
 * test/unit/commands/schema.test.ts fails when it differs from what
 * `layerlab schema` prints now.
 */
export const LAB_SCHEMA_FILE = 'lab/definition/lab.schema.json';

/**
 * The JSON Schema of a lab file, generated from the zod schema that
 * validates it: types, ranges, enums, defaults and, from each key's
 * `.describe()`, the text docs/lab-definition.md shows for it. Inline (no
 * $ref) so a YAML language server completes nested keys such as
 * `target.aws.`; what a lab file may be written as (a size as "64M" or a
 * number; `repetitions` as a count or a stop rule), not what it becomes.
 * Cross-field checks (a profile's targets, disk sizes) stay with `validate`.
 */
export function labJsonSchema(): Record<string, unknown> {
  return zodToJsonSchema(labSchema, {
    $refStrategy: 'none',
    effectStrategy: 'input',
    // VS Code's YAML extension renders markdownDescription (the descriptions use `code`).
    markdownDescription: true,
  }) as Record<string, unknown>;
}

/** The schema as `layerlab schema` prints it and the repository keeps it. */
export function labJsonSchemaText(): string {
  return `${JSON.stringify(labJsonSchema(), null, 2)}\n`;
}
