import type { z } from 'zod';

/** "rep: Expected number, received string; ...": a zod failure in one line, for "<file>:<line>: ..." messages. */
export function zodProblem(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`)
    .join('; ');
}

/** A parse function for parseNdjson and JSON files: the schema's value, or an error saying which field is wrong. */
export function checkWith<S extends z.ZodTypeAny>(schema: S): (value: unknown) => z.infer<S> {
  return (value) => {
    const result = schema.safeParse(value);
    if (!result.success) throw new Error(`not a valid record entry (${zodProblem(result.error)})`);
    return result.data;
  };
}
