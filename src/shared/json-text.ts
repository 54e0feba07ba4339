/**
 * Every JSON body the service sends is compact JSON followed by one newline: a terminal that
 * prints it (`curl -s .../status.json`) then starts its next output on a line of its own, as
 * it does after any text file. The one place that rule is written.
 */

/** `value` as a JSON response body: compact, ending in `\n`. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** {@link jsonText} as UTF-8 bytes. */
export function jsonBytes(value: unknown): Buffer {
  return Buffer.from(jsonText(value));
}
