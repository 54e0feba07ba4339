/**
 * PNG chunks with their CRC-32 (ISO 3309, as the PNG specification requires), over plain
 * `Uint8Array`s so the same code runs in Node (the tile encoder, the scheme rewrite) and in
 * browsers (the viewer's client-side palette swap).
 */
import { crc32 } from '../shared/crc32';

export { crc32 };

/**
 * One PNG chunk: length, the four-letter `type`, `data` and its CRC (over type and data).
 * Built with `Uint8Array` and `DataView` only.
 */
export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out, 4, 8 + data.length));
  return out;
}
