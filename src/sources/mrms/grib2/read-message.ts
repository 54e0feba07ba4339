/**
 * One GRIB2 message (sections 0 to 8) to its fields. Sections must come in the order the
 * edition 2 specification allows: 0, 1, optional 2, then groups of 3-4-5-6-7 in which, after a
 * data section, the message may go on with a new local-use section (2), a new grid (3) or a new
 * product on the same grid (4), until the end section "7777". Every section length is checked
 * against the message before the section is read.
 */
import type { Fail } from './grib2-error';
import { readBitmap, type Bitmap } from './bitmap-section';
import { readDataRepresentation, type DataRepresentation } from './data-representation';
import { readFieldData } from './field-data';
import { readGridDefinition, type GridDefinition } from './grid-template-3-0';
import { readIdentification, type Identification } from './identification-section';
import { readProductDefinition } from './product-template-4-0';
import { toCanonicalOrder } from './scanning-mode';
import { sectionView } from './section-view';
import type { Grib2Field, LatLonGrid, ProductDefinition } from './types';

/** Section 0 is 16 octets; the end section is "7777". */
export const INDICATOR_LENGTH = 16;
const END_MARKER = [0x37, 0x37, 0x37, 0x37];

/** Which section numbers may follow each section. */
const NEXT: Readonly<Record<number, readonly number[]>> = {
  0: [1],
  1: [2, 3],
  2: [3],
  3: [4],
  4: [5],
  5: [6],
  6: [7],
  7: [2, 3, 4],
};

/** The message being read: where it lies, its discipline, and the point budget left. */
export interface MessageFrame {
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly end: number;
  readonly index: number;
  readonly discipline: number;
  readonly fail: Fail;
  /** The caller's check of each grid before its values are decoded (see `readGrib2`). */
  readonly acceptGrid?: (grid: LatLonGrid) => string | undefined;
  /** Grid points this input may still decode (the reader's cap minus fields already read). */
  pointBudget: number;
  /** Fields this input may still hold. */
  fieldBudget: number;
}

/** Reads the sections of one message whose bounds the caller has checked. */
export function readMessage(frame: MessageFrame): Grib2Field[] {
  const { bytes, end, index } = frame;
  const fail: Fail = (problem) => frame.fail(`message ${index + 1}: ${problem}`);
  const at4 = end - END_MARKER.length;
  if (END_MARKER.some((b, i) => bytes[at4 + i] !== b)) fail('does not end with "7777"');

  const fields: Grib2Field[] = [];
  let identification: Identification | null = null;
  let grid: GridDefinition | null = null;
  let product: ProductDefinition | null = null;
  let packing: DataRepresentation | null = null;
  let bitmap: Bitmap | null = null;
  let lastBitmap: Bitmap | null = null;
  let previous = 0;
  let at = frame.start + INDICATOR_LENGTH;
  while (at < at4) {
    if (at + 5 > at4) fail(`section header at byte ${at - frame.start} runs into the end section`);
    const length = new DataView(bytes.buffer, bytes.byteOffset + at, 5).getUint32(0);
    const number = bytes[at + 4]!;
    if (length < 5) fail(`section ${number} length ${length} is shorter than its own header`);
    if (at + length > at4) {
      fail(`section ${number} length ${length} runs past the message end`);
    }
    if (!NEXT[previous]!.includes(number)) {
      fail(`section ${number} cannot follow section ${previous}`);
    }
    const section = sectionView(bytes, at, length, number, fail);
    switch (number) {
      case 1:
        identification = readIdentification(section);
        break;
      case 2:
        break; // Local use: nothing the reader needs.
      case 3:
        grid = readGridDefinition(section, frame.pointBudget);
        {
          const problem = frame.acceptGrid?.(grid.grid);
          if (problem !== undefined) fail(`section 3: ${problem}`);
        }
        break;
      case 4:
        product = readProductDefinition(section, identification!.referenceTime);
        break;
      case 5:
        packing = readDataRepresentation(section);
        break;
      case 6:
        bitmap = readBitmap(section, grid!.points, lastBitmap);
        if (bitmap !== null) lastBitmap = bitmap;
        break;
      case 7: {
        const g = grid!;
        if (frame.fieldBudget === 0) fail("holds more fields than the reader's cap");
        frame.fieldBudget--;
        if (g.points > frame.pointBudget) {
          fail(`field ${fields.length + 1} would take the input past the reader's cap on points`);
        }
        frame.pointBudget -= g.points;
        const stored = readFieldData(section, g.points, packing!, bitmap);
        const values = toCanonicalOrder(stored, g.grid.width, g.grid.height, g.scan);
        fields.push({
          message: index,
          field: fields.length,
          discipline: frame.discipline,
          centre: identification!.centre,
          subCentre: identification!.subCentre,
          referenceTime: identification!.referenceTime,
          referenceTimeSignificance: identification!.referenceTimeSignificance,
          ...product!,
          grid: g.grid,
          packing: {
            template: packing!.template,
            reference: packing!.reference,
            binaryScale: packing!.binaryScale,
            decimalScale: packing!.decimalScale,
            bits: packing!.bits,
          },
          values,
          missingPoints: bitmap === null ? 0 : g.points - bitmap.present,
        });
        break;
      }
    }
    previous = number;
    at += length;
  }
  if (previous !== 7) fail(`ends after section ${previous}, before a data section`);
  return fields;
}
