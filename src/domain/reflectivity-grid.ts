/**
 * The one shape every radar source hands to the renderer: reflectivity on a regular lat/lon
 * raster. A source (the simulator, the MRMS follower) only has to fill this in; projecting,
 * colouring, tiling and packing are the renderer's job, so every source publishes the same kind
 * of archive.
 */

/** A lon/lat box in degrees (WGS84), west < east, south < north. */
export interface GeoBounds {
  readonly west: number;
  readonly south: number;
  readonly east: number;
  readonly north: number;
}

/**
 * Reflectivity on a regular latitude/longitude raster, in the layout of a GRIB2 grid template
 * 3.0 with scanning mode 0 (which is how MRMS ships its CONUS mosaics), so a decoder fills it
 * without reordering.
 *
 * Geometry: cell (column `c`, row `r`) is centred at longitude `west + c * dLon` and latitude
 * `north - r * dLat`, and covers half a step around that centre in each direction. Columns run
 * west to east, rows north to south (row 0 is the northernmost). The raster's outer edges are
 * therefore `west - dLon / 2` .. `west + (width - 0.5) * dLon` and
 * `north - (height - 0.5) * dLat` .. `north + dLat / 2` (see {@link gridExtent}); they must lie
 * within -180..180 and the web-mercator latitude limit (the raster may not cross the
 * antimeridian: give longitudes east of 180 as negative values, e.g. MRMS's 230.005 as -129.995).
 *
 * Values: `values[r * width + c]` is the cell's reflectivity in dBZ (float32), except:
 * - `noCoverage` (MRMS: -999) or NaN: no radar sees this cell.
 * - `noEcho` (MRMS: -99): a radar sees the cell and it holds no echo.
 * - Any other value is a measured dBZ; values below the palette's first step (5 dBZ) count as
 *   no echo, as radar displays show them.
 * Tiles draw no coverage and no echo alike (transparent); the archive's metadata counts them
 * apart and boxes the covered area.
 * The two markers must differ and must not be valid reflectivities (below -50 dBZ); values are
 * compared with them after rounding the markers to float32, so any float32 marker matches.
 *
 * The renderer only reads a grid; it never keeps or changes `values` after it returns.
 */
export interface ReflectivityGrid {
  /** Columns, west to east (MRMS CONUS: 7000). */
  readonly width: number;
  /** Rows, north to south (MRMS CONUS: 3500). */
  readonly height: number;
  /** Longitude of the centre of column 0, degrees in -180..180 (MRMS CONUS: -129.995). */
  readonly west: number;
  /** Latitude of the centre of row 0, degrees (MRMS CONUS: 54.995). */
  readonly north: number;
  /** Column spacing, degrees, positive (MRMS CONUS: 0.01). */
  readonly dLon: number;
  /** Row spacing, degrees, positive; row r+1 lies dLat south of row r (MRMS CONUS: 0.01). */
  readonly dLat: number;
  /** `width * height` reflectivities in dBZ, row-major, row 0 northernmost. */
  readonly values: Float32Array;
  /** Marker of cells no radar covers (MRMS: -999); NaN means the same. */
  readonly noCoverage: number;
  /** Marker of covered cells without echo (MRMS: -99). */
  readonly noEcho: number;
  /**
   * What the values are, for the archive's metadata, e.g.
   * `MRMS ReflectivityAtLowestAltitude 00.50` or `radar-tiles simulator`.
   */
  readonly product: string;
  /**
   * When the values are valid, epoch milliseconds (UTC). The archive's timestamp is this
   * instant truncated to the minute.
   */
  readonly validTimeMs: number;
}

/**
 * The usual marker of cells without radar coverage, whatever the source (MRMS writes -999; the
 * simulator uses the same value, so figures and tests read both alike).
 */
export const NO_COVERAGE_MARKER = -999;
/** The usual marker of covered cells without echo (MRMS writes -99; the simulator too). */
export const NO_ECHO_MARKER = -99;

/** Largest latitude web-mercator tiles reach, degrees. */
export const MERCATOR_MAX_LAT = 85.0511287798066;

/** Cells a grid may hold: 4x the MRMS CONUS mosaic, so a hostile size fails before allocating. */
export const MAX_GRID_CELLS = 100_000_000;

/** Where a raster lies: its size, the centre of its north-west cell and its spacing. */
export type GridGeometry = Pick<
  ReflectivityGrid,
  'width' | 'height' | 'west' | 'north' | 'dLon' | 'dLat'
>;

/**
 * Exactly the geometry of `grid` (a decoded GRIB2 grid, a reflectivity grid), in one fixed key
 * order: what a source copies into a {@link ReflectivityGrid} and what the archive's metadata
 * records, without the values or any other field riding along.
 */
export function gridGeometry(grid: GridGeometry): GridGeometry {
  return {
    width: grid.width,
    height: grid.height,
    west: grid.west,
    north: grid.north,
    dLon: grid.dLon,
    dLat: grid.dLat,
  };
}

/** The outer edges of the raster's cells, degrees. */
export function gridExtent(grid: ReflectivityGrid): GeoBounds {
  return {
    west: grid.west - grid.dLon / 2,
    east: grid.west + (grid.width - 0.5) * grid.dLon,
    north: grid.north + grid.dLat / 2,
    south: grid.north - (grid.height - 0.5) * grid.dLat,
  };
}

/**
 * Why `grid` cannot be rendered (dimensions, spacing, extent, markers, values length), or
 * `undefined` when it can. Sources call it to report a bad frame in their own words; the
 * renderer calls it before touching the values.
 */
export function gridProblem(grid: ReflectivityGrid): string | undefined {
  const { width, height, dLon, dLat } = grid;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1)
    return `dimensions must be positive integers, got ${width} x ${height}`;
  if (width * height > MAX_GRID_CELLS)
    return `${width} x ${height} cells exceed the limit of ${MAX_GRID_CELLS}`;
  // Not instanceof: an array made in another realm (a vm context, a worker) counts too.
  const isFloat32 = Object.prototype.toString.call(grid.values) === '[object Float32Array]';
  if (!isFloat32 || grid.values.length !== width * height)
    return `values must be a Float32Array of ${width * height} cells, got ${grid.values?.length}`;
  if (!(dLon > 0 && dLat > 0 && Number.isFinite(dLon) && Number.isFinite(dLat)))
    return `cell size must be positive degrees, got dLon ${dLon}, dLat ${dLat}`;
  if (!Number.isFinite(grid.west) || !Number.isFinite(grid.north))
    return `west and north must be finite degrees, got ${grid.west}, ${grid.north}`;
  const extent = gridExtent(grid);
  if (extent.west < -180 || extent.east > 180)
    return `longitudes ${extent.west}..${extent.east} leave -180..180 (no antimeridian crossing)`;
  if (extent.south < -MERCATOR_MAX_LAT || extent.north > MERCATOR_MAX_LAT)
    return `latitudes ${extent.south}..${extent.north} leave the web-mercator range`;
  const { noCoverage, noEcho } = grid;
  if (Number.isNaN(noEcho) || !(noEcho < -50)) return `noEcho must be below -50 dBZ, got ${noEcho}`;
  if (!(Number.isNaN(noCoverage) || noCoverage < -50))
    return `noCoverage must be NaN or below -50 dBZ, got ${noCoverage}`;
  if (noCoverage === noEcho) return `noCoverage and noEcho must differ, both are ${noEcho}`;
  if (typeof grid.product !== 'string' || grid.product.length === 0)
    return 'product must name the source product';
  if (!Number.isFinite(grid.validTimeMs))
    return `validTimeMs must be epoch ms, got ${grid.validTimeMs}`;
  return undefined;
}
