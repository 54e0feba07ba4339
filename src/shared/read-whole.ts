/**
 * A body's bytes, read whole: a Buffer as it is, a stream to its end (`node:stream/consumers`).
 * For the small bodies the service reads into memory (an archive header or directory, a cache
 * block, a tile to recolour, a response in a test); a large download is streamed, never read
 * whole.
 */
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';

export function readWhole(body: Buffer | Readable): Promise<Buffer> {
  return Buffer.isBuffer(body) ? Promise.resolve(body) : buffer(body);
}
