/**
 * The MRMS source of grids: decoded GRIB2 fields in, the renderer's `ReflectivityGrid` out.
 * MRMS ships its mosaics in the grid layout the renderer reads (regular lat/lon, row 0 north,
 * west to east), so the values are handed over as they are; this module only decides whether
 * a field is a reflectivity grid at all, names its product and keeps MRMS's markers.
 */
import {
  gridGeometry,
  gridProblem,
  NO_COVERAGE_MARKER,
  NO_ECHO_MARKER,
  type ReflectivityGrid,
} from '../../domain/reflectivity-grid';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps';
import type { Grib2Field } from './grib2/types';
import { baseName, parseMrmsFileName } from './mrms-file-name';
import { reflectivityProduct } from './mrms-products';

/**
 * A GRIB2 file that decodes but holds no renderable reflectivity grid (another MRMS product,
 * another centre's field, a grid the renderer cannot draw). Like `Grib2Error`, it is a bad
 * input: the producer counts it, logs it and skips the file.
 */
export class MrmsProductError extends Error {
  /** The name the caller gave for the input (usually the file name). */
  readonly fileName: string;
  /** The problem alone, without the file name. */
  readonly problem: string;

  constructor(fileName: string, problem: string) {
    super(`${fileName}: ${problem}`);
    this.name = 'MrmsProductError';
    this.fileName = fileName;
    this.problem = problem;
  }
}

/** The originating centre of MRMS files: 161, NOAA's Office of Oceanic and Atmospheric Research. */
export const MRMS_CENTRE = 161;

/** A valid time in words, also when `Date` cannot print it. */
function describeTime(time: Date): string {
  return Number.isFinite(time.getTime())
    ? time.toISOString()
    : 'outside the dates JavaScript holds';
}

/** The codes of a field in words, for error messages. */
function describeField(field: Grib2Field): string {
  return `discipline ${field.discipline} category ${field.category} parameter ${field.parameter}`;
}

/**
 * The reflectivity grid of an MRMS file: its first reflectivity field (MRMS files hold one
 * field). Product name: `MRMS {Product} {Level}`, the level taken from the file name when the
 * name agrees with the field's product. Markers: -999 no coverage (a point the bitmap marks
 * absent decodes as NaN, which the renderer reads the same way), -99 no echo. Valid time: the
 * field's (reference time plus forecast time). Throws {@link MrmsProductError} when no field
 * is a reflectivity product, the field is not from MRMS's centre (161), its valid time cannot
 * name an archive (before 1970 or after 9999), or its grid cannot be rendered (e.g. it crosses
 * the antimeridian).
 */
export function mrmsReflectivityGrid(
  fields: readonly Grib2Field[],
  fileName: string,
): ReflectivityGrid {
  if (fields.length === 0) throw new MrmsProductError(fileName, 'the file holds no field');
  let field: Grib2Field | undefined;
  let productName: string | undefined;
  for (const candidate of fields) {
    const product = reflectivityProduct(
      candidate.discipline,
      candidate.category,
      candidate.parameter,
    );
    if (product) {
      field = candidate;
      productName = product.name;
      break;
    }
  }
  if (!field || productName === undefined) {
    const first = fields[0]!;
    throw new MrmsProductError(
      fileName,
      `not a reflectivity grid: ${describeField(first)}${fields.length > 1 ? ` (and ${fields.length - 1} more fields, none reflectivity)` : ''}; ` +
        'only MRMS reflectivity products in dBZ (discipline 209) are rendered',
    );
  }
  if (field.centre !== MRMS_CENTRE)
    throw new MrmsProductError(
      fileName,
      `a field of centre ${field.centre} is not MRMS: MRMS fields come from centre ${MRMS_CENTRE} (NOAA OAR)`,
    );
  const validTimeMs = field.validTime.getTime();
  if (!(validTimeMs >= 0) || parseTimestamp(formatTimestamp(validTimeMs)) === undefined)
    throw new MrmsProductError(
      fileName,
      `valid time ${describeTime(field.validTime)} cannot name an archive (years 1970-9999 only)`,
    );
  const named = parseMrmsFileName(baseName(fileName));
  const level = named?.product === productName ? ` ${named.level}` : '';
  const { grid } = field;
  const reflectivity: ReflectivityGrid = {
    ...gridGeometry(grid),
    values: field.values,
    noCoverage: NO_COVERAGE_MARKER,
    noEcho: NO_ECHO_MARKER,
    product: `MRMS ${productName}${level}`,
    validTimeMs,
  };
  const problem = gridProblem(reflectivity);
  if (problem !== undefined)
    throw new MrmsProductError(fileName, `${productName} cannot be rendered: ${problem}`);
  return reflectivity;
}
