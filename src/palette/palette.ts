/**
 * The NWS base-reflectivity colour scale, as data. Tiles, archive metadata and the viewer's
 * legend all read this one table, so a colour on the map always means the same dBZ range.
 */

/** One colour step: every value from `dbz` up to the next step's `dbz` shows `color`. */
export interface PaletteStep {
  /** Lower bound of the step, inclusive, in dBZ. */
  readonly dbz: number;
  /** CSS hex colour `#rrggbb`. */
  readonly color: string;
}

/** Values below this many dBZ are transparent (no echo drawn), as on NWS displays. */
export const MIN_VISIBLE_DBZ = 5;

/** The 15 steps of 5 dBZ from 5 to 75 dBZ; the last step covers everything above 75. */
export const REFLECTIVITY_PALETTE: readonly PaletteStep[] = Object.freeze(
  (
    [
      [5, '#04e9e7'],
      [10, '#019ff4'],
      [15, '#0300f4'],
      [20, '#02fd02'],
      [25, '#01c501'],
      [30, '#008e00'],
      [35, '#fdf802'],
      [40, '#e5bc00'],
      [45, '#fd9500'],
      [50, '#fd0000'],
      [55, '#d40000'],
      [60, '#bc0000'],
      [65, '#f800fd'],
      [70, '#9854c6'],
      [75, '#fdfdfd'],
    ] as const
  ).map(([dbz, color]) => Object.freeze({ dbz, color })),
);

/**
 * Palette index of a reflectivity: 0 for transparent (below {@link MIN_VISIBLE_DBZ} or NaN),
 * otherwise 1 + the position of its step in {@link REFLECTIVITY_PALETTE}. This is the index
 * stored in the tiles' indexed PNGs, so it must stay in step with {@link paletteRgba}.
 */
export function paletteIndex(dbz: number): number {
  if (!(dbz >= MIN_VISIBLE_DBZ)) return 0;
  return Math.min(REFLECTIVITY_PALETTE.length, Math.floor(dbz / 5));
}

/** The palette colour of a reflectivity, or `undefined` where it is transparent. */
export function colorForDbz(dbz: number): string | undefined {
  const index = paletteIndex(dbz);
  return index === 0 ? undefined : REFLECTIVITY_PALETTE[index - 1]?.color;
}

/** Parses `#rrggbb` into its three channels. */
export function hexToRgb(color: string): [number, number, number] {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!match) throw new Error(`not a #rrggbb colour: ${color}`);
  return [parseInt(match[1]!, 16), parseInt(match[2]!, 16), parseInt(match[3]!, 16)];
}

/**
 * RGBA of every palette index, entry 0 transparent black: the PLTE + tRNS content of the
 * tiles, and what tests compare decoded pixels against.
 */
export function paletteRgba(): Array<[number, number, number, number]> {
  return [
    [0, 0, 0, 0],
    ...REFLECTIVITY_PALETTE.map(
      (s) => [...hexToRgb(s.color), 255] as [number, number, number, number],
    ),
  ];
}

/**
 * The surface precipitation types a pixel can carry, in the order of their palette blocks: the
 * rain block is indices 1..15 (the untyped palette above), snow 17..31, hail 33..47.
 */
export const PRECIP_TYPES = Object.freeze(['rain', 'snow', 'hail'] as const);

/** A precipitation type a pixel carries. */
export type PrecipType = (typeof PRECIP_TYPES)[number];

/** Palette indices per type block: type `t` (position in {@link PRECIP_TYPES}) at `16 t + step`. */
export const TYPE_STRIDE = 16;

/** Entries of the typed palette: three blocks of {@link TYPE_STRIDE} (index 16 t transparent). */
export const TYPED_PALETTE_SIZE = TYPE_STRIDE * PRECIP_TYPES.length;

/**
 * Palette index of dBZ step `step` (1..15) of type `type`: `16 * position + step`. Rain keeps
 * indices 1..15, so a tile written without type is a typed tile that holds only rain.
 */
export function typedIndex(type: PrecipType, step: number): number {
  return TYPE_STRIDE * PRECIP_TYPES.indexOf(type) + step;
}

/** Type and dBZ step (1..15) of a palette index, or `undefined` for a transparent index. */
export function indexMeaning(index: number): { type: PrecipType; step: number } | undefined {
  const step = index % TYPE_STRIDE;
  const type = PRECIP_TYPES[Math.floor(index / TYPE_STRIDE)];
  if (!Number.isInteger(index) || step === 0 || type === undefined) return undefined;
  return { type, step };
}
