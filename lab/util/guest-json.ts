import { readFileSync } from 'node:fs';
import { printable } from './safe-text.js';

/**
 * A JSON object a guest wrote, or why it cannot be used: a guest can send any
 * bytes, and one bad file must fail only what it belongs to.
 */
export function readGuestJson(path: string): { value: Record<string, unknown> } | { problem: string } {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return { value: value as Record<string, unknown> };
    return { problem: `not a JSON object (${Array.isArray(value) ? 'an array' : typeof value})` };
  } catch (err) {
    return { problem: printable(err instanceof Error ? err.message : String(err)) };
  }
}
