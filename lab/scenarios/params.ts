import { z } from 'zod';
import { formatBytes, parseSize } from '../util/size.js';

/**
 * A size parameter: "64M", "4k", "1G" (binary units) or a plain number of
 * bytes, within [min, max]. Kept as written (a string); parseSize reads it.
 * A union rather than a preprocess, so the JSON Schema (`layerlab schema`)
 * tells an editor that both forms are accepted.
 */
export function sizeParam(min: number, max: number) {
  const message = `expected a size like "64M", "4k" or a number of bytes, from ${formatBytes(min)} to ${formatBytes(max)}`;
  return z
    .union([z.string(), z.number().int()], {
      errorMap: (issue, ctx) => ({ message: issue.code === 'invalid_union' ? message : ctx.defaultError }),
    })
    .transform((v) => String(v))
    .refine(
      (s) => {
        const n = parseSize(s);
        return n !== undefined && n >= min && n <= max;
      },
      { message },
    );
}
