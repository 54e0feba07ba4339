/**
 * Section 3 (grid definition) with grid template 3.0, the regular latitude/longitude grid MRMS
 * uses. Turns the file's first point, increments and scanning mode into the canonical geometry
 * of {@link LatLonGrid} (row 0 northernmost, west to east). Angles are kept in the file's
 * integer units until the end so that 230.005E comes out as -129.995 exactly, not
 * -129.99499999999998.
 */
import type { LatLonGrid } from './types';
import type { SectionView } from './section-view';
import { readScanningMode, type ScanningMode } from './scanning-mode';

/** Section 3 read: the canonical grid, its point count and how the file orders the points. */
export interface GridDefinition {
  readonly grid: LatLonGrid;
  readonly points: number;
  readonly scan: ScanningMode;
}

/** Template 3.0 ends at octet 72. */
const TEMPLATE_3_0_LENGTH = 72;
/** GRIB2's default angle unit when basic angle is 0 or missing: 10^-6 degree. */
const DEFAULT_SUBDIVISIONS = 1_000_000;

/**
 * Reads section 3. `maxPoints` is the point budget left for this input: a grid above it fails
 * here, before any value array exists.
 */
export function readGridDefinition(section: SectionView, maxPoints: number): GridDefinition {
  if (section.length < 14) section.fail(`length ${section.length} is below its 14-octet header`);
  const source = section.uint(6, 1);
  if (source !== 0) section.fail(`grid definition source ${source} is not supported (only 0)`);
  const template = section.uint(13, 2);
  if (template !== 0) section.fail(`grid template 3.${template} is not supported (only 3.0)`);
  if (section.uint(11, 1) !== 0) {
    section.fail('a list of numbers of points (quasi-regular grid) is not supported');
  }
  if (section.length !== TEMPLATE_3_0_LENGTH) {
    section.fail(
      `length ${section.length} is not the ${TEMPLATE_3_0_LENGTH} octets of template 3.0`,
    );
  }
  const points = section.uint(7, 4);
  const width = section.uint(31, 4);
  const height = section.uint(35, 4);
  if (section.isMissing(31, 4) || section.isMissing(35, 4) || width === 0 || height === 0) {
    section.fail(`grid of ${width} x ${height} points is not a regular grid`);
  }
  if (width * height !== points) {
    section.fail(`grid of ${width} x ${height} points disagrees with its ${points} data points`);
  }
  if (points > maxPoints) {
    section.fail(`grid of ${points} points exceeds the reader's cap of ${maxPoints} points`);
  }

  // Angle unit = basic angle / subdivisions degrees; 0 or missing basic angle means 10^-6.
  let basic = section.uint(39, 4);
  let subdivisions = section.uint(43, 4);
  if (basic === 0 || section.isMissing(39, 4)) {
    basic = 1;
    subdivisions = DEFAULT_SUBDIVISIONS;
  } else if (subdivisions === 0 || section.isMissing(43, 4)) {
    section.fail(`angle subdivisions ${subdivisions} cannot divide basic angle ${basic}`);
  }
  const flags = section.uint(55, 1);
  if ((flags & 0x30) !== 0x30 || section.isMissing(64, 4) || section.isMissing(68, 4)) {
    section.fail(`grid increments are not given (resolution flags 0x${flags.toString(16)})`);
  }
  const lat1 = section.signed(47, 4);
  const lon1 = section.signed(51, 4);
  const di = section.uint(64, 4);
  const dj = section.uint(68, 4);
  if (di === 0 || dj === 0) section.fail(`grid increments ${di} x ${dj} must be positive`);
  const scan = readScanningMode(section.uint(72, 1), section.fail);

  const degrees = (units: number) => (units * basic) / subdivisions;
  const circle = (360 * subdivisions) / basic;
  if ((width - 1) * di >= circle) {
    section.fail(`${width} columns ${degrees(di)} degrees apart span a full circle or more`);
  }
  const westUnits = scan.iNegative ? lon1 - (width - 1) * di : lon1;
  const northUnits = scan.jPositive ? lat1 + (height - 1) * dj : lat1;
  const southUnits = northUnits - (height - 1) * dj;
  if (degrees(northUnits) > 90 || degrees(southUnits) < -90) {
    section.fail(
      `rows from ${degrees(northUnits)} to ${degrees(southUnits)} degrees leave the -90..90 range`,
    );
  }
  // Longitudes to [-180, 180) on the western column; the eastern one follows without wrapping.
  const half = circle / 2;
  const westNormal = ((((westUnits + half) % circle) + circle) % circle) - half;
  const eastNormal = westNormal + (width - 1) * di;
  const edge = (units: number, sign: 1 | -1, step: number) => degrees(units + (sign * step) / 2);
  return {
    points,
    scan,
    grid: {
      width,
      height,
      north: degrees(northUnits),
      west: degrees(westNormal),
      south: degrees(southUnits),
      east: degrees(eastNormal),
      dLat: degrees(dj),
      dLon: degrees(di),
      bounds: {
        west: edge(westNormal, -1, di),
        south: edge(southUnits, -1, dj),
        east: edge(eastNormal, 1, di),
        north: edge(northUnits, 1, dj),
      },
      scanningMode: scan.flags,
      shapeOfEarth: section.uint(15, 1),
    },
  };
}
