/**
 * The colour schemes tiles can be served in, as data. The renderer writes every tile once, in
 * the NWS palette (`palette.ts`): palette index 0 is "no echo" (transparent) and index i is the
 * i-th 5 dBZ step. A scheme gives every index another colour, so serving a tile in a scheme is
 * a substitution of the PNG's palette (`scheme-rewrite.ts`), never a re-render, and every
 * scheme shows exactly the same dBZ steps. The legend (`/legend.json`), the z/x/y scheme routes
 * and the viewer all read this one table.
 *
 * Tiles of frames published with a precipitation type hold three blocks of indices (rain 1..15,
 * snow 17..31, hail 33..47, see `typedIndex`), so every scheme gives each type its own colours;
 * a frame without type holds only the rain block and looks as it always did.
 *
 * A scheme's colours never change under its id: tiles are cached as immutable, so a changed
 * palette must get a new id (the tile ETags also name a hash of the palette, so a change can
 * never be taken for the old bytes by a revalidating client).
 */
import { hexToRgb, PRECIP_TYPES, type PrecipType, REFLECTIVITY_PALETTE } from './palette';

/** RGBA, each channel 0..255: one PNG palette entry (PLTE colour, tRNS alpha). */
export type Rgba = readonly [number, number, number, number];

/** The colour of one dBZ step in a scheme. */
export interface SchemeColour {
  /** CSS hex colour `#rrggbb`. */
  readonly color: string;
  /** Opacity as stored in the PNG's tRNS chunk: 0 (transparent) .. 255 (opaque). */
  readonly alpha: number;
}

/**
 * One colour scheme: for each precipitation type a colour per step of
 * {@link REFLECTIVITY_PALETTE}, in order.
 */
export interface ColourScheme {
  /** URL segment and legend key: lower-case letters, digits and `-`. Never reused. */
  readonly id: string;
  readonly name: string;
  /** What the scheme is for and where its colours come from. */
  readonly description: string;
  /** Rain (and untyped echo): one colour per dBZ step, in the order of {@link REFLECTIVITY_PALETTE}. */
  readonly steps: readonly SchemeColour[];
  /** Snow: one colour per dBZ step. */
  readonly snow: readonly SchemeColour[];
  /** Hail (rain mixed with hail): one colour per dBZ step. */
  readonly hail: readonly SchemeColour[];
}

/** A scheme's colours of one type, one per dBZ step. */
export function typeColours(scheme: ColourScheme, type: PrecipType): readonly SchemeColour[] {
  return type === 'rain' ? scheme.steps : scheme[type];
}

/** Id of the scheme the archives are rendered in (and the plain tile routes serve). */
export const DEFAULT_SCHEME_ID = 'nws';

/** The syntax of a scheme id (the URL segment); anything else is not a scheme. */
export const SCHEME_ID_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

const opaque = (colors: readonly string[]): SchemeColour[] =>
  colors.map((color) => Object.freeze({ color, alpha: 255 }));

const channel = (level: number): string => level.toString(16).padStart(2, '0');
/** `#rrggbb` of a grey level. */
const grey = (level: number): string => `#${channel(level).repeat(3)}`;
/** The same colour for every step: hail is a warning, shown in one colour at any dBZ. */
const every = (color: string): string[] => REFLECTIVITY_PALETTE.map(() => color);

/** NWS rain colours, also what the untyped scheme shows for every type. */
const NWS_RAIN = REFLECTIVITY_PALETTE.map((step) => step.color);

/** The schemes, the default first. */
export const COLOUR_SCHEMES: readonly ColourScheme[] = Object.freeze(
  [
    {
      id: DEFAULT_SCHEME_ID,
      name: 'NWS reflectivity',
      description:
        'The National Weather Service base-reflectivity colour scale the archives are rendered ' +
        'in: cyan and blue for weak echoes, greens, yellows and reds for stronger ones, magenta ' +
        'and white for the strongest. Not safe for colour-vision deficiencies: several steps ' +
        'differ mainly by a red-green contrast. Snow is a ramp from dark blue (5 dBZ) to ' +
        'white (75 dBZ and above), hail (rain mixed with hail) hot pink at any dBZ.',
      steps: opaque(NWS_RAIN),
      // Linear in sRGB from #08306b to #ffffff in 15 steps.
      snow: opaque([
        '#08306b',
        '#1a3f76',
        '#2b4e80',
        '#3d5c8b',
        '#4f6b95',
        '#607aa0',
        '#7289aa',
        '#8498b5',
        '#95a6c0',
        '#a7b5ca',
        '#b8c4d5',
        '#cad3df',
        '#dce1ea',
        '#edf0f4',
        '#ffffff',
      ]),
      hail: opaque(every('#ff69b4')),
    },
    {
      id: 'untyped',
      name: 'NWS reflectivity without type',
      description:
        'The NWS scale for every echo whatever its precipitation type: snow and hail in the ' +
        'colours of rain, the look of frames published without type.',
      steps: opaque(NWS_RAIN),
      snow: opaque(NWS_RAIN),
      hail: opaque(NWS_RAIN),
    },
    {
      id: 'cividis',
      name: 'Cividis (colour-vision-deficiency safe)',
      description:
        'Cividis (Nuñez, Anderton and Renslow, PLOS ONE 13(7): e0199239, 2018), a sequential ' +
        'blue-to-yellow colour map designed to look alike to viewers with and without ' +
        'red-green colour-vision deficiency; sampled at 15 equal steps from its dark end (5 dBZ) ' +
        'to its bright end (75 dBZ and above). Lightness rises with every step, so the order of ' +
        'the steps reads from lightness alone, also in greyscale. That is rain; snow is a ' +
        'ramp from mid blue to white, lighter than the rain of the same step and of another ' +
        'hue, and hail is black, which stands apart from the bright strong steps where hail ' +
        'occurs (checked under simulated protanopia, deuteranopia and tritanopia).',
      // d3-scale-chromatic 3.1.1 interpolateCividis(i / 14), i = 0..14 (its fit of the map).
      steps: opaque([
        '#002051',
        '#032d66',
        '#173a6d',
        '#30476e',
        '#48546d',
        '#5d616e',
        '#706e71',
        '#7f7c75',
        '#8e8978',
        '#9e9878',
        '#b1a775',
        '#c6b76c',
        '#ddc75f',
        '#f1d851',
        '#fdea45',
      ]),
      // Linear in sRGB from #3569b8 to #ffffff in 15 steps.
      snow: opaque([
        '#3569b8',
        '#4374bd',
        '#527ec2',
        '#6089c7',
        '#6f94cc',
        '#7d9fd1',
        '#8ca9d6',
        '#9ab4dc',
        '#a8bfe1',
        '#b7c9e6',
        '#c5d4eb',
        '#d4dff0',
        '#e2eaf5',
        '#f1f4fa',
        '#ffffff',
      ]),
      hail: opaque(every('#000000')),
    },
    {
      id: 'grey-dbz',
      name: 'Grey ramp of dBZ values',
      description:
        'Reflectivity as data, in the encoding of RainViewer\u2019s "black and white: dBZ values" ' +
        'scheme: every channel of a pixel is its step\u2019s lower bound in dBZ plus 32 (5 dBZ ' +
        'is grey 37, 75 dBZ and above grey 107), so a program reads dBZ = red - 32. The type ' +
        'is in the other channels: rain is grey (green = blue = red), snow has blue = red + ' +
        '128, hail has green = red + 128; so type = snow if blue > red, hail if green > red, ' +
        'else rain. Meant for processing, not for the eye: neighbouring steps differ by 5 ' +
        'grey levels.',
      steps: opaque(REFLECTIVITY_PALETTE.map((step) => grey(step.dbz + 32))),
      snow: opaque(
        REFLECTIVITY_PALETTE.map(
          ({ dbz }) => `#${channel(dbz + 32).repeat(2)}${channel(dbz + 160)}`,
        ),
      ),
      hail: opaque(
        REFLECTIVITY_PALETTE.map(
          ({ dbz }) => `#${channel(dbz + 32)}${channel(dbz + 160)}${channel(dbz + 32)}`,
        ),
      ),
    },
  ].map((scheme) =>
    Object.freeze({
      ...scheme,
      steps: Object.freeze(scheme.steps),
      snow: Object.freeze(scheme.snow),
      hail: Object.freeze(scheme.hail),
    }),
  ),
);

/** The scheme named `id`, or undefined (an unknown or malformed id). */
export function findScheme(id: string): ColourScheme | undefined {
  return COLOUR_SCHEMES.find((scheme) => scheme.id === id);
}

/**
 * The PNG palette of a scheme, 16 entries per type in the order of
 * `PRECIP_TYPES`: each block's entry 0 transparent black (index 0: no echo, in every scheme;
 * 16 and 32 are never written), then one entry per step. Its first 16 entries have, index for
 * index, the meaning of the renderer's untyped `paletteRgba()`, so one rewrite recolours tiles
 * with and without type.
 */
export function schemeRgba(scheme: ColourScheme): Rgba[] {
  return PRECIP_TYPES.flatMap((type): Rgba[] => [
    [0, 0, 0, 0],
    ...typeColours(scheme, type).map(
      ({ color, alpha }) => [...hexToRgb(color), alpha] as [number, number, number, number],
    ),
  ]);
}

/** The palette the archives are written in: the default scheme's ({@link schemeRgba}). */
export function storedPalette(): Rgba[] {
  return schemeRgba(COLOUR_SCHEMES[0]!);
}

/** The dBZ range of palette index `index` (1..15): `max` exclusive, null for the last step. */
export function stepRange(index: number): { readonly min: number; readonly max: number | null } {
  const step = REFLECTIVITY_PALETTE[index - 1];
  if (step === undefined) throw new RangeError(`no dBZ step has palette index ${index}`);
  return { min: step.dbz, max: REFLECTIVITY_PALETTE[index]?.dbz ?? null };
}

/** The label of palette index `index` (1..15): `5–10 dBZ`, ..., `≥ 75 dBZ`. */
export function stepLabel(index: number): string {
  const { min, max } = stepRange(index);
  return max === null ? `\u2265 ${min} dBZ` : `${min}\u2013${max} dBZ`;
}
