import { labJsonSchemaText } from '../definition/json-schema.js';

/** `layerlab schema`: the lab definition's JSON Schema on stdout, for editors. */
export function schemaCommand(): void {
  process.stdout.write(labJsonSchemaText());
}
