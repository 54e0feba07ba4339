/**
 * Reading a body whole, but never more than a bound: a source that sends more than it should
 * (a file that grew, a hostile listing) fails after `maxBytes` bytes instead of filling memory.
 */

/**
 * The chunks of `body` joined, or `tooLarge()` thrown as soon as they pass `maxBytes` (the rest
 * is not read: leaving the loop ends the iteration, which cancels a web stream and destroys a
 * Node stream).
 */
export async function readBounded(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks, size);
}
