/**
 * The `/legend.json` document: every colour scheme's dBZ steps per precipitation type, colours (CSS hex and RGBA as
 * in the tiles' palette), opacity and labels, and the URL templates of its tiles, built from
 * the scheme table alone. It depends on nothing published, so it changes only when the table
 * does (with a deploy) and is the same on every replica. URLs are paths relative to the
 * service, so the document does not depend on the host a client used.
 */
import {
  COLOUR_SCHEMES,
  DEFAULT_SCHEME_ID,
  schemeRgba,
  stepLabel,
  stepRange,
} from '../palette/colour-schemes';
import {
  MIN_VISIBLE_DBZ,
  PRECIP_TYPES,
  type PrecipType,
  REFLECTIVITY_PALETTE,
  typedIndex,
} from '../palette/palette';

/** One dBZ step of one precipitation type in a scheme. */
export interface LegendStep {
  /** Palette index in the tiles: 16 t + step (rain 1..15, snow 17..31, hail 33..47). */
  readonly index: number;
  /** The precipitation type the step's pixels show (untyped frames hold rain alone). */
  readonly type: PrecipType;
  /** Lower bound in dBZ, inclusive. */
  readonly min: number;
  /** Upper bound in dBZ, exclusive; null for the last step (everything above). */
  readonly max: number | null;
  readonly label: string;
  /** CSS `#rrggbb`. */
  readonly color: string;
  /** Red, green, blue, alpha, each 0..255, as in the PNG palette. */
  readonly rgba: readonly [number, number, number, number];
  /** alpha / 255, rounded to 3 decimals (CSS opacity). */
  readonly opacity: number;
}

export interface LegendScheme {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Path template of the scheme's z/x/y tiles. */
  readonly tiles: string;
  /** Path template of the scheme's TileJSON. */
  readonly tilejson: string;
  readonly steps: readonly LegendStep[];
}

export interface Legend {
  readonly units: 'dBZ';
  /** Id of the scheme the archives and the plain tile routes are in. */
  readonly default: string;
  /** Palette index 0, transparent in every scheme, and what it stands for. */
  readonly transparent: {
    readonly index: 0;
    readonly rgba: readonly [0, 0, 0, 0];
    readonly label: string;
  };
  readonly schemes: readonly LegendScheme[];
}

const hex = (rgba: readonly number[]): string =>
  `#${rgba
    .slice(0, 3)
    .map((c) => c.toString(16).padStart(2, '0'))
    .join('')}`;

/** The legend of the scheme table (pure: an equal document on every call). */
export function buildLegend(): Legend {
  return {
    units: 'dBZ',
    default: DEFAULT_SCHEME_ID,
    transparent: {
      index: 0,
      rgba: [0, 0, 0, 0],
      label: `below ${MIN_VISIBLE_DBZ} dBZ, or no radar coverage`,
    },
    schemes: COLOUR_SCHEMES.map((scheme) => ({
      id: scheme.id,
      name: scheme.name,
      description: scheme.description,
      tiles: `/tiles/{timestamp}/${scheme.id}/{z}/{x}/{y}.png`,
      tilejson: `/tiles/{timestamp}/${scheme.id}.json`,
      steps: legendSteps(schemeRgba(scheme)),
    })),
  };
}

/** The steps of a scheme's palette: per type in `PRECIP_TYPES` order, its 15 dBZ steps. */
function legendSteps(palette: readonly (readonly number[])[]): LegendStep[] {
  return PRECIP_TYPES.flatMap((type) =>
    REFLECTIVITY_PALETTE.map((_, i) => {
      const index = typedIndex(type, i + 1);
      const [r, g, b, a] = palette[index] as [number, number, number, number];
      return {
        index,
        type,
        ...stepRange(i + 1),
        label: stepLabel(i + 1),
        color: hex([r, g, b]),
        rgba: [r, g, b, a] as const,
        opacity: Math.round((a / 255) * 1000) / 1000,
      };
    }),
  );
}
