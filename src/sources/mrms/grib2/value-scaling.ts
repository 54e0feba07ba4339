/**
 * The GRIB2 value formula Y = (R + X * 2^E) / 10^D, evaluated the way NOAA's wgrib2 does so
 * that every decoded float32 equals wgrib2's: R * 10^-D and 2^E * 10^-D are formed once in
 * double precision (powers by repeated squaring, a negative power as powers of 1/x), each
 * value is base + step * X in double precision and then rounded to float32. Dividing by 10^D
 * instead would differ from wgrib2 in the last bit for some values.
 */

/** x^n for integer n by repeated squaring; n < 0 squares 1/x, as wgrib2's Int_Power does. */
function integerPower(x: number, n: number): number {
  let base = x;
  let exponent = n;
  if (exponent < 0) {
    exponent = -exponent;
    base = 1 / base;
  }
  let value = 1;
  while (exponent !== 0) {
    if (exponent & 1) value *= base;
    base *= base;
    exponent >>>= 1;
  }
  return value;
}

/** Value = `base + step * X`, in double precision, before rounding to float32. */
export interface ValueScaling {
  readonly base: number;
  readonly step: number;
}

/** The scaling of reference value R, binary scale E and decimal scale D. */
export function valueScaling(
  reference: number,
  binaryScale: number,
  decimalScale: number,
): ValueScaling {
  const decimal = integerPower(10, -decimalScale);
  return { base: reference * decimal, step: integerPower(2, binaryScale) * decimal };
}
