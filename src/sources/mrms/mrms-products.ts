/**
 * Which MRMS fields are reflectivity. MRMS encodes its products in GRIB2 discipline 209 (a
 * local discipline of NOAA/NSSL) by parameter category and number; the producer renders only
 * reflectivity mosaics in dBZ (the palette means dBZ), so every other field (precipitation
 * type, rates, accumulations, echo tops, hail, lightning) is refused before rendering.
 */

/** GRIB2 discipline of MRMS's local parameter tables. */
const MRMS_DISCIPLINE = 209;

/** A reflectivity product of the MRMS tables: its GRIB2 codes and MRMS's own name. */
export interface MrmsReflectivityProduct {
  readonly category: number;
  readonly parameter: number;
  /** MRMS's product name, as in its file names (`MRMS_{name}_{level}_...`). */
  readonly name: string;
}

/**
 * The reflectivity products of MRMS's 2D CONUS feed (discipline 209), all in dBZ with MRMS's
 * markers (-999 no coverage, -99 no echo). ReflectivityAtLowestAltitude (3/57) is checked
 * against a real NOAA file in the tests; the other codes follow the MRMS GRIB2 tables as the
 * open-source GRIB2 readers carry them.
 */
const MRMS_REFLECTIVITY_PRODUCTS: readonly MrmsReflectivityProduct[] = Object.freeze(
  (
    [
      [3, 57, 'ReflectivityAtLowestAltitude'],
      [3, 58, 'MergedReflectivityAtLowestAltitude'],
      [10, 0, 'MergedReflectivityQCComposite'],
      [10, 2, 'LowLevelCompositeReflectivity'],
      [10, 4, 'LayerCompositeReflectivity_Low'],
      [10, 5, 'LayerCompositeReflectivity_High'],
      [10, 6, 'LayerCompositeReflectivity_Super'],
      [10, 7, 'CREF_1HR_MAX'],
      [10, 10, 'BREF_1HR_MAX'],
      [11, 0, 'MergedBaseReflectivityQC'],
      [11, 1, 'MergedReflectivityComposite'],
      [11, 2, 'MergedReflectivityQComposite'],
      [11, 3, 'MergedBaseReflectivity'],
    ] as const
  ).map(([category, parameter, name]) => Object.freeze({ category, parameter, name })),
);

/** The reflectivity product of a field's codes, or `undefined` when it is something else. */
export function reflectivityProduct(
  discipline: number,
  category: number,
  parameter: number,
): MrmsReflectivityProduct | undefined {
  if (discipline !== MRMS_DISCIPLINE) return undefined;
  return MRMS_REFLECTIVITY_PRODUCTS.find(
    (p) => p.category === category && p.parameter === parameter,
  );
}
