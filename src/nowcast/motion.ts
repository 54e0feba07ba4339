/**
 * The motion field: where the echoes of the latest frames are going, as a velocity per time
 * step on a coarse grid. OpenCV's Farneback dense optical flow is run on the echo images
 * (see echo-image.ts) of the latest frame and of an earlier one, backwards (latest to earlier),
 * so each vector is anchored where the echo is now, which is where the backward extrapolation
 * asks for it. The displacement over several steps is divided by the number of steps: at the
 * coarse scale a 2-minute displacement is a fraction of a pixel, and a longer baseline measures
 * it more precisely. Vectors are then smoothed with a Gaussian weighted by echo, so the motion
 * in echo-free areas (where new echo arrives from) is that of the echoes around them.
 */
import type { EchoImage } from './echo-image';
import type { OpenCv } from './opencv';

/** Velocity on a coarse grid, in grid cells (of the full-resolution grid) per time step. */
export interface MotionField {
  readonly width: number;
  readonly height: number;
  /** Full-resolution grid cells per motion cell along each axis. */
  readonly factor: number;
  /** Eastward (column) and southward (row) velocity, cells per step, row-major. */
  readonly u: Float32Array;
  readonly v: Float32Array;
}

/** How the motion is estimated. */
export interface MotionOptions {
  /** Farneback's averaging window, motion-grid pixels. */
  readonly window: number;
  /** Farneback's pyramid levels. */
  readonly levels: number;
  /** Farneback's iterations per level. */
  readonly iterations: number;
  /** Standard deviation of the echo-weighted smoothing, motion-grid pixels (0: none). */
  readonly smoothing: number;
}

export const DEFAULT_MOTION_OPTIONS: MotionOptions = Object.freeze({
  window: 15,
  levels: 4,
  iterations: 5,
  smoothing: 8,
});

/**
 * The motion between `earlier` and `latest`, `steps` time steps apart: the velocity per step.
 * Both images must have the same size and factor.
 */
export function estimateMotion(
  cv: OpenCv,
  earlier: EchoImage,
  latest: EchoImage,
  steps: number,
  options: MotionOptions = DEFAULT_MOTION_OPTIONS,
): MotionField {
  if (
    earlier.width !== latest.width ||
    earlier.height !== latest.height ||
    earlier.factor !== latest.factor
  )
    throw new RangeError('echo images of different sizes');
  if (!(steps > 0)) throw new RangeError(`steps ${steps} must be positive`);
  const { width, height, factor } = latest;
  const from = cv.matFromArray(height, width, cv.CV_8UC1, latest.pixels);
  const to = cv.matFromArray(height, width, cv.CV_8UC1, earlier.pixels);
  const flow = new cv.Mat();
  try {
    cv.calcOpticalFlowFarneback(
      from,
      to,
      flow,
      0.5,
      options.levels,
      options.window,
      options.iterations,
      5,
      1.1,
      0,
    );
    const data = flow.data32F;
    const u = new Float32Array(width * height);
    const v = new Float32Array(width * height);
    const scale = -factor / steps; // backwards displacement in motion pixels -> forward cells per step
    for (let i = 0; i < u.length; i++) {
      u[i] = data[2 * i]! * scale;
      v[i] = data[2 * i + 1]! * scale;
    }
    const field = { width, height, factor, u, v };
    return options.smoothing > 0 ? smoothByEcho(field, latest, options.smoothing) : field;
  } finally {
    from.delete();
    to.delete();
    flow.delete();
  }
}

/** A normalised 1-D Gaussian kernel of standard deviation `sigma`, radius 3 sigma. */
function gaussian(sigma: number): Float32Array {
  const radius = Math.max(1, Math.ceil(3 * sigma));
  const kernel = new Float32Array(2 * radius + 1);
  for (let i = -radius; i <= radius; i++)
    kernel[i + radius] = Math.exp((-i * i) / (2 * sigma * sigma));
  return kernel;
}

/** Separable convolution of a row-major `width` x `height` array, edges clamped. */
function blur(
  input: Float32Array,
  width: number,
  height: number,
  kernel: Float32Array,
): Float32Array {
  const radius = (kernel.length - 1) / 2;
  const across = new Float32Array(input.length);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      let sum = 0;
      for (let k = -radius; k <= radius; k++) {
        const xx = Math.min(width - 1, Math.max(0, x + k));
        sum += kernel[k + radius]! * input[row + xx]!;
      }
      across[row + x] = sum;
    }
  }
  const out = new Float32Array(input.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      for (let k = -radius; k <= radius; k++) {
        const yy = Math.min(height - 1, Math.max(0, y + k));
        sum += kernel[k + radius]! * across[yy * width + x]!;
      }
      out[y * width + x] = sum;
    }
  }
  return out;
}

/**
 * Normalised convolution: each vector becomes the echo-weighted Gaussian mean of the vectors
 * around it, so vectors measured on echo dominate and echo-free areas take their neighbours'.
 */
function smoothByEcho(field: MotionField, image: EchoImage, sigma: number): MotionField {
  const { width, height } = field;
  const weight = new Float32Array(width * height);
  const wu = new Float32Array(width * height);
  const wv = new Float32Array(width * height);
  for (let i = 0; i < weight.length; i++) {
    const w = image.pixels[i]! / 255 + 1e-3;
    weight[i] = w;
    wu[i] = w * field.u[i]!;
    wv[i] = w * field.v[i]!;
  }
  const kernel = gaussian(sigma);
  const sw = blur(weight, width, height, kernel);
  const su = blur(wu, width, height, kernel);
  const sv = blur(wv, width, height, kernel);
  for (let i = 0; i < sw.length; i++) {
    su[i] = su[i]! / sw[i]!;
    sv[i] = sv[i]! / sw[i]!;
  }
  return { ...field, u: su, v: sv };
}
