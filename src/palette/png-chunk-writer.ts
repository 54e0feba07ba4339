/**
 * The pieces of a PNG the renderer writes and the scheme rewrite swaps: the signature, chunks
 * with their CRC-32 (ISO 3309, as the PNG specification requires), and a palette's PLTE and
 * tRNS chunks. Plain `Uint8Array`s only, so the same code runs in Node (the tile encoder, the
 * scheme rewrite) and in browsers (the viewer's client-side palette swap).
 */
import { crc32 } from '../shared/crc32';
import type { Rgba } from './colour-schemes';

/** The eight bytes every PNG starts with (never written to). */
export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

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

/**
 * The PLTE chunk of `palette` (RGBA per index) and its tRNS chunk, which stops after the last
 * entry that is not opaque (empty when every entry is): what a palette PNG says its colours are.
 */
export function paletteChunks(palette: readonly Rgba[]): {
  readonly plte: Uint8Array;
  readonly trns: Uint8Array;
} {
  const plte = pngChunk('PLTE', Uint8Array.from(palette.flatMap(([r, g, b]) => [r, g, b])));
  let last = -1;
  palette.forEach(([, , , a], i) => {
    if (a !== 255) last = i;
  });
  const trns =
    last < 0
      ? new Uint8Array(0)
      : pngChunk('tRNS', Uint8Array.from(palette.slice(0, last + 1).map(([, , , a]) => a)));
  return { plte, trns };
}
