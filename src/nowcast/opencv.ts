/**
 * The part of OpenCV (the `@techstark/opencv-js` WebAssembly build) the motion estimate uses,
 * typed here because the package ships no types, and its loader. The nowcast takes an
 * {@link OpenCv} as a dependency, so the module is loaded once per process and only where a
 * nowcast runs.
 */

/** An OpenCV matrix: only what the nowcast touches. */
export interface CvMat {
  readonly rows: number;
  readonly cols: number;
  readonly data32F: Float32Array;
  delete(): void;
}

/** The OpenCV functions and constants the nowcast uses. */
export interface OpenCv {
  readonly CV_8UC1: number;
  readonly CV_32FC2: number;
  Mat: new () => CvMat;
  matFromArray(rows: number, cols: number, type: number, array: ArrayLike<number>): CvMat;
  calcOpticalFlowFarneback(
    prev: CvMat,
    next: CvMat,
    flow: CvMat,
    pyrScale: number,
    levels: number,
    winsize: number,
    iterations: number,
    polyN: number,
    polySigma: number,
    flags: number,
  ): void;
}

let loading: Promise<{ readonly cv: OpenCv }> | undefined;

/**
 * Loads OpenCV's WebAssembly module once per process and resolves when it is ready (about half
 * a second). The module's functions exist before its runtime is ready (its `Mat` does not),
 * and the module object is a thenable that resolves to itself, so it is handed back wrapped.
 */
export function loadOpenCv(): Promise<{ readonly cv: OpenCv }> {
  loading ??= new Promise((resolve) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require('@techstark/opencv-js') as Partial<OpenCv> & {
      onRuntimeInitialized?: () => void;
    };
    const ready = () => resolve({ cv: module as OpenCv });
    if (typeof module.Mat === 'function') ready();
    else module.onRuntimeInitialized = ready;
  });
  return loading;
}
