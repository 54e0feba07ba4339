/**
 * The JSON metadata of a rendered archive: what the pixels mean (product, valid time, units,
 * palette, whether pixels carry a precipitation type, and how no coverage differs from no echo) and where they came from (the source grid
 * and the resampling rule), so a client can interpret a frame without knowing its source.
 */
import { formatTimestamp } from '../domain/timestamps';
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
 * Metadata of the archive of `grid`: descriptive defaults, overridden by the source's `extra`
 * fields, overridden in turn by the renderer's own fields (which describe the pixels and must
 * stay true whatever the source says).
 */
export function frameMetadata(
  grid: ReflectivityGrid,
  classes: ClassGrid,
  extra: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  // Classes carry their own palette mapping exactly when the frame was classed with types.
  const typed = classes.paletteOf !== undefined;
  const timestamp = formatTimestamp(grid.validTimeMs);
  const covered = coveredBox(classes);
  return {
    name: `${grid.product} ${timestamp}`,
    description: `Reflectivity (${grid.product}) at ${new Date(grid.validTimeMs).toISOString()}`,
    type: 'overlay',
    ...extra,
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
