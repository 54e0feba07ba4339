/**
 * Section 5 (data representation): which packing the data section uses and its scaling.
 * Templates 5.0 (simple packing) and 5.41 (PNG) are decoded; 5.40 (JPEG 2000) and every other
 * template fail with a clear "not supported" error naming the template.
 */
import type { Grib2Packing } from './types';
import type { SectionView } from './section-view';

/** Section 5 read: the packing and how many values section 7 holds. */
export interface DataRepresentation extends Grib2Packing {
  /** Values packed in section 7 (grid points minus those a bitmap marks absent). */
  readonly packedValues: number;
}

/** Templates 5.0 and 5.41 both end at octet 21. */
const TEMPLATE_LENGTH = 21;
/** Widest packed value read: 32 bits (also the widest PNG pixel GRIB2 uses, RGBA 8-bit). */
const MAX_PACKED_BITS = 32;

/** Reads section 5; fails on an unsupported template or unusable scaling. */
export function readDataRepresentation(section: SectionView): DataRepresentation {
  if (section.length < 11) section.fail(`length ${section.length} is below its 11-octet header`);
  const template = section.uint(10, 2);
  if (template === 40 || template === 40000) {
    section.fail(`unsupported template 5.${template} (JPEG 2000 packing)`);
  }
  if (template !== 0 && template !== 41) {
    section.fail(`unsupported template 5.${template} (only 5.0 and 5.41 are decoded)`);
  }
  if (section.length !== TEMPLATE_LENGTH) {
    section.fail(
      `length ${section.length} is not the ${TEMPLATE_LENGTH} octets of template 5.${template}`,
    );
  }
  const reference = section.float32(12);
  if (!Number.isFinite(reference)) section.fail(`reference value ${reference} is not finite`);
  const bits = section.uint(20, 1);
  if (bits > MAX_PACKED_BITS) {
    section.fail(`${bits} bits per value is more than the ${MAX_PACKED_BITS} the reader decodes`);
  }
  return {
    template,
    packedValues: section.uint(6, 4),
    reference,
    binaryScale: section.signed(16, 2),
    decimalScale: section.signed(18, 2),
    bits,
  };
}
