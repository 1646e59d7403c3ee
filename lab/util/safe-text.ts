/**
 * Text from a guest (stderr, parser messages, file contents, names in raw
 * output, env values) made safe for each place it is shown: a guest must not
 * be able to move the cursor, rewrite earlier lines, set the window title or
 * hide text on a terminal (ANSI escape injection), nor add rows, links,
 * images or HTML to Markdown and HTML. One function per output context, all
 * here (docs/SECURITY.md):
 * - a terminal or log, free text (stderr tails, messages): `printable`;
 * - a terminal, a value (a name, a version): `visible`; quoted: `quoted`;
 *   JSON: `jsonText`;
 * - Markdown (report.md, `compare`, the CI job summary): `markdownText`,
 *   `markdownCode`, `markdownLineStart`;
 * - HTML (report.html): `htmlText`;
 * - CSV (samples.csv): `csvCell`.
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
  return jsonText(text);
}

/**
 * What no guest value may carry into an output as it is: C0 (tab and newline
 * included: a value is one line), DEL, C1, and the Unicode marks that reorder
 * text or break lines on a reader's screen (bidi embeddings, overrides and
 * isolates, line and paragraph separators).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it exists to find them
const UNSHOWN = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

/**
 * A guest's value (a fio job name, a kernel string, a parser's complaint) on
 * one line, every control character shown as its escape (`\x1b`, `\n`,
 * `\u202e`), so a reader sees that it was there and nothing acts on it.
 * The base of every output context below; plain text in a terminal uses it
 * as it is.
 */
export function visible(text: string): string {
  return text.replace(UNSHOWN, (c) => {
    const code = c.charCodeAt(0);
    return (
      NAMED[c] ??
      (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
    );
  });
}

/** Characters that start or end inline Markdown (GitHub-flavoured): emphasis, code, links, HTML, entities, strikethrough, table cells. */
const MARKDOWN_INLINE = /[\\`*_[\]<>|~&]/g;
const WORD = /[\p{L}\p{N}]/u;

/**
 * Plain text inside Markdown (report.md, `compare`, a CI job summary): shown
 * as it is, never read as markup. Control characters as in `visible`, then a
 * backslash before each character that could start markup; '_' inside a word
 * cannot (GFM), so `clat_p99` stays as it is.
 */
export function markdownText(text: string): string {
  return visible(text).replace(MARKDOWN_INLINE, (c, at: number, s: string) =>
    c === '_' && WORD.test(s[at - 1] ?? '') && WORD.test(s[at + 1] ?? '') ? c : `\\${c}`,
  );
}

/**
 * Plain text as a Markdown code span: backslashes do not escape inside one,
 * so the fence is one backtick longer than any run of them in the text. In a
 * table cell a '|' still ends the cell and is written `\|` (GFM).
 */
export function markdownCode(text: string, inTableCell = false): string {
  let t = visible(text);
  if (inTableCell) t = t.replaceAll('|', '\\|');
  const longest = Math.max(0, ...(t.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/**
 * A Markdown line whose start is text: a leading '#', '>', '+', '-', '=' or
 * "1." would make it a heading, quote, list or rule (or the line above a
 * heading), so that character is escaped.
 */
export function markdownLineStart(line: string): string {
  return line.replace(/^(\s*)([#>+=-])/, '$1\\$2').replace(/^(\s*\d+)([.)])/, '$1\\$2');
}

/** Plain text in HTML, element content or a double-quoted attribute: markup characters as entities, control characters as in `visible`. */
export function htmlText(text: string): string {
  return visible(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** A plain decimal number: a spreadsheet reads it as a number, never as a formula. */
const PLAIN_NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** What makes a spreadsheet read a cell as a formula (OWASP CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell (samples.csv). Control characters as in `visible` (a `cat` of
 * the file reaches a terminal); a text cell that a spreadsheet would run as a
 * formula gets a leading single quote inside a quoted field; numbers,
 * negative ones included, stay numbers.
 */
export function csvCell(value: unknown): string {
  if (typeof value === 'number') return String(value);
  const s = value === undefined ? '' : visible(String(value));
  if (FORMULA_START.test(s) && !PLAIN_NUMBER.test(s)) return `"'${s.replaceAll('"', '""')}"`;
  return /[",]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/**
 * A value as JSON for a terminal (`layerlab parse`, `compare --json`): as
 * JSON.stringify, which escapes C0, with DEL, C1, bidi marks and the line
 * separators escaped too (still the same JSON value).
 */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    /[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
