/**
 * The JSON metadata of a rendered archive: what the pixels mean (product, valid time, units,
 * palette, whether pixels carry a precipitation type, and how no coverage differs from no echo) and where they came from (the source grid
 * and the resampling rule), so a client can interpret a frame without knowing its source.
 */
import { forecastValidTimestamp } from '../domain/forecast-frames';
import { formatTimestamp, parseTimestamp } from '../domain/timestamps';
import { gridGeometry, type ReflectivityGrid } from '../domain/reflectivity-grid';
import { type ClassGrid, coveredBox } from './grid-classes';
import { REFLECTIVITY_PALETTE } from '../palette/palette';

/** Name and version of the renderer, recorded in every archive. */
export const RENDERER = 'radar-tiles renderer 1';

/** What a transparent pixel means, in the metadata's words. */
const TRANSPARENT =
  'palette index 0 (transparent): no echo of at least 5 dBZ, or no radar coverage; ' +
  '"cells" counts each and "coveredBounds" boxes the covered area';

/** How typed pixels are read, in the metadata's words. */
const TYPED =
  'palette index 16 t + step: t = 0 rain, 1 snow, 2 hail (from the precipitation-type grid); ' +
  'step 1..15 as in "palette"';

/** How pixels are resampled from the grid, in the metadata's words. */
const RESAMPLING =
  'each pixel shows the strongest colour among the grid cells whose centres it contains, ' +
  'or the cell under its centre when it contains none';

/**
 * What makes a frame a forecast: the observed frame it extrapolates (`base`, 12 digits), how
 * far ahead (`lead`, minutes), every lead of that base's cycle, the method, and the motion the
 * echoes were moved along (the nowcast's encoded field, docs/nowcast.md).
 */
export interface ForecastFacts {
  readonly base: string;
  readonly lead: number;
  readonly leads: readonly number[];
  /** Name and version of the nowcast method, one line. */
  readonly method: string;
  readonly motion: Readonly<Record<string, unknown>>;
}

/**
 * The fields that make a frame a forecast: `kind`, `forecast` {base, lead, valid, leads,
 * method}, `motion`, and a name and description saying it is a forecast. The grid of a
 * forecast must be valid at base + lead.
 */
function forecastFields(
  grid: ReflectivityGrid,
  forecast: ForecastFacts | undefined,
): Record<string, unknown> {
  if (forecast === undefined) return {};
  const { base, lead, leads, method, motion } = forecast;
  const valid = forecastValidTimestamp({ base, lead });
  if (valid !== formatTimestamp(grid.validTimeMs))
    throw new RangeError(`a forecast +${lead} min from ${base} must be valid at ${valid}`);
  const from = new Date(parseTimestamp(base)!).toISOString().slice(0, 16);
  return {
    name: `${grid.product} forecast +${lead} min from ${from}Z`,
    description:
      `Nowcast of reflectivity (${grid.product}) ${lead} minutes after the frame observed at ` +
      `${from}Z, valid at ${new Date(grid.validTimeMs).toISOString()}: extrapolated, not observed`,
    kind: 'forecast',
    forecast: { base, lead, valid, leads: [...leads], method },
    motion,
  };
}

/**
 * Metadata of the archive of `grid`: descriptive defaults (`kind: "observed"` among them),
 * overridden by the source's `extra` fields, overridden in turn by the forecast's fields when
 * `forecast` is given and by the renderer's own fields (which describe the pixels and must stay
 * true whatever the source says). Tests build invalid forecast archives through `extra`.
 */
export function frameMetadata(
  grid: ReflectivityGrid,
  classes: ClassGrid,
  extra: Readonly<Record<string, unknown>> = {},
  forecast?: ForecastFacts,
): Record<string, unknown> {
  // Classes carry their own palette mapping exactly when the frame was classed with types.
  const typed = classes.paletteOf !== undefined;
  const timestamp = formatTimestamp(grid.validTimeMs);
  const covered = coveredBox(classes);
  return {
    name: `${grid.product} ${timestamp}`,
    description: `Reflectivity (${grid.product}) at ${new Date(grid.validTimeMs).toISOString()}`,
    type: 'overlay',
    kind: 'observed',
    ...extra,
    ...forecastFields(grid, forecast),
    format: 'png',
    product: grid.product,
    timestamp,
    validTime: new Date(grid.validTimeMs).toISOString(),
    units: 'dBZ',
    palette: REFLECTIVITY_PALETTE.map((step) => ({ dbz: step.dbz, color: step.color })),
    transparent: TRANSPARENT,
    precipitationType: typed ? { typed: true, indices: TYPED } : { typed: false },
    grid: gridGeometry(grid),
    cells: { ...classes.counts },
    coveredBounds: covered
      ? [
          round(grid.west + (covered.c0 - 0.5) * grid.dLon),
          round(grid.north - (covered.r1 + 0.5) * grid.dLat),
          round(grid.west + (covered.c1 + 0.5) * grid.dLon),
          round(grid.north + (0.5 - covered.r0) * grid.dLat),
        ]
      : null,
    resampling: RESAMPLING,
    renderer: RENDERER,
  };
}

/** Degrees to 1e-6 (0.1 m): enough for a box, without float noise in the JSON. */
function round(degrees: number): number {
  return Math.round(degrees * 1e6) / 1e6;
}
