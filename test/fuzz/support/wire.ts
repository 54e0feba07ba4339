/**
 * Header values on the wire: characters up to U+00FF are sent as one byte (so NBSP is the
 * single byte 0xA0), anything above as UTF-8. Node decodes header bytes as latin1, so
 * `serverView` is exactly the string the service sees.
 */
export function toWire(text: string): Buffer {
  const parts: Buffer[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    parts.push(code <= 0xff ? Buffer.from([code]) : Buffer.from(ch, 'utf8'));
  }
  return Buffer.concat(parts);
}

export function serverView(wire: Buffer): string {
  return wire.toString('latin1');
}

/** Replaces bytes a request line or header value cannot carry (CTLs, CR, LF) with `x`. */
export function headerSafe(text: string): string {
  return [...text]
    .map((c) => (/[\t\x20-\x7e]/.test(c) || c.codePointAt(0)! > 0x7f ? c : 'x'))
    .join('');
}
