/**
 * Text for a terminal. A command prints ids, names and messages that came from a file, Redis
 * or its own arguments; a control character among them (an escape sequence clearing the
 * screen, a carriage return overwriting a line, a line break forging one) must reach the
 * operator as visible text, never act on the terminal. Line breaks the command itself writes
 * between lines are kept.
 */

/** C0 controls, DEL, C1 controls, and the Unicode line and paragraph separators. */
function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

function escaped(text: string, keepLineFeed: boolean): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isControl(code) || (keepLineFeed && code === 0x0a)) continue;
    out += `${text.slice(from, i)}\\u${code.toString(16).padStart(4, '0')}`;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * `text` with every control character but the line feed written as `\uXXXX`. Applied to
 * JSON text it stays valid JSON meaning the same (the escape is JSON's own), and
 * `JSON.stringify` already escapes every C0 character inside strings.
 */
export function printable(text: string): string {
  return escaped(text, true);
}

/** One value for inside a line: every control character, line feed included, as `\uXXXX`. */
export function printableValue(text: string): string {
  return escaped(text, false);
}
