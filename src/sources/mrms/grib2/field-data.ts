/**
 * Section 7 (data) of one field: unpacks the values that sections 5 and 6 describe into a
 * float32 array in the file's scan order. Simple packing reads the section as a bitstream; PNG
 * packing decodes the PNG first and reads its samples the same way.
 */
import type { Bitmap } from './bitmap-section';
import type { DataRepresentation } from './data-representation';
import { decodePngSamples } from './png-samples';
import type { SectionView } from './section-view';
import { packedBytes, unpackValues } from './unpack-values';
import { valueScaling } from './value-scaling';

/** Values of the `points` grid points, in the file's order (NaN where the bitmap says absent). */
export function readFieldData(
  section: SectionView,
  points: number,
  packing: DataRepresentation,
  bitmap: Bitmap | null,
): Float32Array {
  const present = bitmap === null ? points : bitmap.present;
  if (packing.packedValues !== present) {
    section.fail(
      `section 5 declares ${packing.packedValues} packed values, but the grid and bitmap have ${present}`,
    );
  }
  const scaling = valueScaling(packing.reference, packing.binaryScale, packing.decimalScale);
  const payload = section.rest(6);
  if (packing.bits === 0 || present === 0) {
    // A constant field (or nothing present): section 7 carries no values.
    return unpackValues(new Uint8Array(0), 0, scaling, points, bitmap);
  }
  if (packing.template === 41) {
    const png = decodePngSamples(payload, present, packing.bits, section.fail);
    return unpackValues(png.samples, png.bits, scaling, points, bitmap);
  }
  const needed = packedBytes(present, packing.bits);
  if (payload.length < needed) {
    section.fail(
      `${payload.length} octets of data are short of the ${needed} that ${present} values of ${packing.bits} bits need`,
    );
  }
  return unpackValues(payload, packing.bits, scaling, points, bitmap);
}
