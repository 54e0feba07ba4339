/**
 * Caps that keep a hostile or corrupt file from costing unbounded memory or time. Every size
 * the input declares is compared with these before anything is allocated.
 */
export interface Grib2Limits {
  /**
   * Most grid points the reader decodes from one input, summed over all its fields. Each point
   * costs 4 bytes of output (float32) plus at most 4 bytes of unpacked PNG samples.
   */
  readonly maxPoints: number;
  /** Most bytes a gzip-compressed input may inflate to (the GRIB2 file itself). */
  readonly maxInflatedBytes: number;
  /** Most fields (data sections) per input, so a file of many tiny grids stays bounded too. */
  readonly maxFields: number;
}

/**
 * Defaults: 100 million points (the MRMS CONUS mosaic has 24.5 million, so four of them fit),
 * 256 MiB of inflated GRIB2 (a CONUS mosaic is about 1 MiB, so a gzip bomb stops long before
 * it costs memory) and 10,000 fields (an MRMS file has one).
 */
export const DEFAULT_GRIB2_LIMITS: Grib2Limits = Object.freeze({
  maxPoints: 100_000_000,
  maxInflatedBytes: 256 * 1024 * 1024,
  maxFields: 10_000,
});
