import { z } from 'zod';
import { formatBytes, parseSize } from '../util/size.js';

/**
 * A size parameter: "64M", "4k", "1G" (binary units) or a plain number of
 * bytes, within [min, max]. Kept as written (a string); parseSize reads it.
 */
export function sizeParam(min: number, max: number) {
  return z.preprocess(
    (v) => (typeof v === 'number' && Number.isInteger(v) ? String(v) : v),
    z.string().refine(
      (s) => {
        const n = parseSize(s);
        return n !== undefined && n >= min && n <= max;
      },
      {
        message: `expected a size like "64M", "4k" or a number of bytes, from ${formatBytes(min)} to ${formatBytes(max)}`,
      },
    ),
  );
}
