/**
 * What the GRIB2 reader returns: one {@link Grib2Field} per data section (a file may hold
 * several messages, a message several fields), each with its values in one canonical order
 * whatever the file's scanning mode, and the grid geometry that goes with that order.
 */

/**
 * A regular latitude/longitude grid (GRIB2 grid template 3.0) in canonical order: `values[row *
 * width + column]`, row 0 the northernmost, columns west to east. Positions are cell centres
 * unless named `bounds`. Longitudes are normalised to [-180, 180); a grid that crosses the
 * antimeridian keeps `east` > 180 so that west < east always holds.
 */
export interface LatLonGrid {
  /** Points per row (GRIB2 Ni). */
  readonly width: number;
  /** Rows (GRIB2 Nj). */
  readonly height: number;
  /** Latitude of the centres of row 0 (the northernmost row), degrees. */
  readonly north: number;
  /** Longitude of the centres of column 0 (the westernmost column), degrees in [-180, 180). */
  readonly west: number;
  /** Latitude of the centres of the last (southernmost) row. */
  readonly south: number;
  /** Longitude of the centres of the last (easternmost) column; may exceed 180. */
  readonly east: number;
  /** Row spacing, degrees, positive. */
  readonly dLat: number;
  /** Column spacing, degrees, positive. */
  readonly dLon: number;
  /**
   * Outer edges of the grid's cells: centres extended by half a cell on every side, not clamped
   * (a global grid with centres at the poles reaches past +-90 by half a cell).
   */
  readonly bounds: {
    readonly west: number;
    readonly south: number;
    readonly east: number;
    readonly north: number;
  };
  /** The file's scanning mode (flag table 3.4), kept for diagnostics; values are reordered. */
  readonly scanningMode: number;
  /** Shape of the earth (code table 3.2), as the file states it. */
  readonly shapeOfEarth: number;
}

/** A fixed surface of product template 4.0 (code table 4.5), e.g. 102 = altitude above MSL. */
export interface FixedSurface {
  readonly type: number;
  /** Scaled value / 10^scale factor, or null when the file gives it as missing. */
  readonly value: number | null;
}

/** How the values were packed (data representation section 5). */
export interface Grib2Packing {
  /** Data representation template: 0 (simple) or 41 (PNG). */
  readonly template: number;
  /** Reference value R (float32 in the file). */
  readonly reference: number;
  /** Binary scale factor E. */
  readonly binaryScale: number;
  /** Decimal scale factor D. */
  readonly decimalScale: number;
  /** Bits per packed value (0 = constant field). */
  readonly bits: number;
}

/** One decoded field: identification, product, grid and values. */
/** What section 4 (product template 4.0) contributes to a field. */
export interface ProductDefinition {
  /** Product definition template number (always 0 here). */
  readonly productTemplate: number;
  /** Parameter category and number (code tables 4.1 and 4.2, discipline-local for MRMS). */
  readonly category: number;
  readonly parameter: number;
  /** Forecast time in `forecastUnit` units (code table 4.4). */
  readonly forecastTime: number;
  readonly forecastUnit: number;
  /** Reference time plus forecast time, UTC: the time the values are valid for. */
  readonly validTime: Date;
  readonly firstSurface: FixedSurface;
  readonly secondSurface: FixedSurface;
}

export interface Grib2Field extends ProductDefinition {
  /** 0-based index of the message in the input, and of the field within that message. */
  readonly message: number;
  readonly field: number;
  /** Discipline (code table 0.0); MRMS products use 209 (local). */
  readonly discipline: number;
  /** Originating centre and sub-centre (common code table C-11). */
  readonly centre: number;
  readonly subCentre: number;
  /** Reference time (section 1), UTC. */
  readonly referenceTime: Date;
  /** Significance of the reference time (code table 1.2): 0 analysis, 1 start of forecast... */
  readonly referenceTimeSignificance: number;
  readonly grid: LatLonGrid;
  readonly packing: Grib2Packing;
  /**
   * `grid.width * grid.height` values in canonical order (see {@link LatLonGrid}), equal to
   * wgrib2's float32 decode. Points the bitmap marks absent are NaN.
   */
  readonly values: Float32Array;
  /** Points the bitmap marks absent (0 without a bitmap). */
  readonly missingPoints: number;
}
