/**
 * The one error the GRIB2 reader throws. Every problem with the input (truncated, corrupt,
 * hostile, or using a feature the reader does not support) becomes a `Grib2Error` whose message
 * names the file and the problem, so a producer can log it, count it and skip the file without
 * telling input errors apart from bugs by guesswork: any other exception out of the reader is a
 * bug.
 */
export class Grib2Error extends Error {
  /** The name the caller gave for the input (usually the file name). */
  readonly fileName: string;
  /** The problem alone, without the file name. */
  readonly problem: string;

  constructor(fileName: string, problem: string, options?: { cause?: unknown }) {
    super(`${fileName}: ${problem}`, options);
    this.name = 'Grib2Error';
    this.fileName = fileName;
    this.problem = problem;
  }
}

/** Throws a {@link Grib2Error} for `fileName`; typed `never` so checks read as guards. */
export type Fail = (problem: string) => never;

/** A {@link Fail} bound to one input name. */
export function failFor(fileName: string): Fail {
  return (problem: string) => {
    throw new Grib2Error(fileName, problem);
  };
}
