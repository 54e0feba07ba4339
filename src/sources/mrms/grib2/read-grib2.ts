/**
 * The GRIB2 reader's entry point: bytes of a GRIB2 file (gzip-compressed or not) to its
 * decoded fields. Supports what NOAA's MRMS products use: edition 2, grid template 3.0,
 * product template 4.0, data representation templates 5.0 and 5.41, bitmaps 255/0/254, any
 * number of messages per file and of fields per message. Everything the file declares is
 * checked before use; every problem is a {@link Grib2Error} naming the file.
 */
import { failFor } from './grib2-error';
import { inflateIfGzip } from './gzip-input';
import { DEFAULT_GRIB2_LIMITS, type Grib2Limits } from './limits';
import { INDICATOR_LENGTH, readMessage, type MessageFrame } from './read-message';
import type { Grib2Field, LatLonGrid } from './types';

/** Options of {@link readGrib2}. */
export interface ReadGrib2Options {
  /** Caps on points, inflated size and fields; defaults in {@link DEFAULT_GRIB2_LIMITS}. */
  readonly limits?: Partial<Grib2Limits>;
  /**
   * The caller's own verdict on a grid, asked after section 3 is read and before its values
   * are decoded: a problem returned fails the read with a `Grib2Error` (a source refuses grids
   * it could not afford to render, e.g. `mrmsRenderAreaProblem`).
   */
  readonly acceptGrid?: (grid: LatLonGrid) => string | undefined;
}

/** The largest message length a Number holds exactly (2^53 - 1). */
const MAX_SAFE_HIGH_WORD = 0x1fffff;

/**
 * Decodes every field of the GRIB2 file in `input`. `name` (usually the file name) starts
 * every error message. Synchronous and CPU-bound: about half a second for an MRMS CONUS
 * mosaic; callers that must stay responsive run it in a worker.
 */
export function readGrib2(
  input: Uint8Array,
  name: string,
  options: ReadGrib2Options = {},
): Grib2Field[] {
  const limits = { ...DEFAULT_GRIB2_LIMITS, ...options.limits };
  const fail = failFor(name);
  const inflated = inflateIfGzip(input, limits.maxInflatedBytes, fail);
  // A plain Uint8Array view (not a Buffer): see png-samples.ts on indexing speed.
  const bytes = new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.length);
  if (bytes.length === 0) fail('file is empty');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const fields: Grib2Field[] = [];
  let pointBudget = limits.maxPoints;
  let fieldBudget = limits.maxFields;
  let at = 0;
  for (let index = 0; at < bytes.length; index++) {
    const left = bytes.length - at;
    if (left < INDICATOR_LENGTH) {
      fail(`message ${index + 1}: ${left} bytes at byte ${at} are too few for a section 0`);
    }
    if (view.getUint32(at) !== 0x47524942) fail(`message ${index + 1}: no "GRIB" at byte ${at}`);
    const edition = bytes[at + 7]!;
    if (edition !== 2) fail(`message ${index + 1}: GRIB edition ${edition} is not supported`);
    const high = view.getUint32(at + 8);
    const length = high * 2 ** 32 + view.getUint32(at + 12);
    if (high > MAX_SAFE_HIGH_WORD || length > left) {
      fail(
        `message ${index + 1}: length ${length} runs past the end of the file (${left} bytes left)`,
      );
    }
    if (length < INDICATOR_LENGTH + 4) {
      fail(`message ${index + 1}: length ${length} is too short for sections 0 and 8`);
    }
    const frame: MessageFrame = {
      bytes,
      start: at,
      end: at + length,
      index,
      discipline: bytes[at + 6]!,
      fail,
      acceptGrid: options.acceptGrid,
      pointBudget,
      fieldBudget,
    };
    fields.push(...readMessage(frame));
    pointBudget = frame.pointBudget;
    fieldBudget = frame.fieldBudget;
    at += length;
  }
  return fields;
}
