/**
 * Text from a guest (stderr, parser messages, file contents) made safe to show
 * on a terminal: a guest must not be able to move the cursor, rewrite earlier
 * lines, set the window title or hide text (ANSI escape injection).
 */

/** String sequences (OSC, DCS, SOS, PM, APC) up to their terminator (BEL or ST) or the end of the line. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it exists to find them
const STRING_SEQUENCE = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?/g;
/** Control sequences: CSI parameters, intermediates and final byte. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it exists to find them
const CONTROL_SEQUENCE = /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?/g;
/** Any other escape: ESC, intermediates, one final byte. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it exists to find them
const OTHER_ESCAPE = /\x1b[\x20-\x2f]*[\x30-\x7e]?/g;
/** What is left of C0 (but tab and newline), DEL and C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it exists to find them
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** `text` without escape sequences and control characters, newlines and tabs kept. */
export function printable(text: string): string {
  return text.replace(STRING_SEQUENCE, '').replace(CONTROL_SEQUENCE, '').replace(OTHER_ESCAPE, '').replace(CONTROL, '');
}

/**
 * A guest's string quoted for a message: JSON escapes C0 controls but lets
 * DEL and C1 (0x9b is a CSI on some terminals) through; those are escaped too.
 */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
