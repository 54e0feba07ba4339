/**
 * The colour schemes as the tile routes use them: per scheme, the rewrite from the palette the
 * archives hold to the scheme's (replacement chunks prepared once, when the core is built) and
 * the tag its tiles' ETags carry. The tag names the scheme and a hash of its palette, so it is
 * the same on every replica running the same table, and a palette that ever changed could not
 * be taken for the old one by a client revalidating with `If-None-Match`.
 */
import { createHash } from 'node:crypto';
import {
  COLOUR_SCHEMES,
  schemeRgba,
  storedPalette,
  type ColourScheme,
} from '../palette/colour-schemes';
import { createPaletteRewrite } from '../palette/scheme-rewrite';

/** One scheme, ready for the tile routes. */
export interface TileScheme {
  readonly scheme: ColourScheme;
  /** `<id>-<8 hex digits of the palette's SHA-256>`, appended to a tile's ETag. */
  readonly tag: string;
  /**
   * The stored tile (in the renderer's palette) in this scheme; synchronous, a few µs for a
   * radar tile. Throws `PaletteMismatchError` for a tile that is not in that palette. The
   * result has a memory block of its own (`Buffer.allocUnsafeSlow`, never a slice of Node's
   * shared pool), so a cache may keep it without keeping a pool slab alive.
   */
  recolour(png: Buffer): Buffer;
}

/** Every scheme of the table by id, each with its rewrite built. */
export function createTileSchemes(): ReadonlyMap<string, TileScheme> {
  const stored = storedPalette();
  const schemes = new Map<string, TileScheme>();
  for (const scheme of COLOUR_SCHEMES) {
    const rgba = schemeRgba(scheme);
    const hash = createHash('sha256').update(Uint8Array.from(rgba.flat())).digest('hex');
    const rewrite = createPaletteRewrite(stored, rgba, (size) => Buffer.allocUnsafeSlow(size));
    schemes.set(scheme.id, {
      scheme,
      tag: `${scheme.id}-${hash.slice(0, 8)}`,
      recolour: (png) => rewrite(png) as Buffer,
    });
  }
  return schemes;
}
