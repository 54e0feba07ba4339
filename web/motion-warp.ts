/**
 * Motion-compensated interpolation between two rendered radar frames, in plain arrays so it is
 * testable without a browser. Between frame A (time 0) and frame B (time 1) the echoes move by
 * D(p) pixels; the picture at `t` samples A back along the motion (`p - t * D`) and B forward
 * (`p + (1 - t) * D`) and cross-fades the two (premultiplied alpha). An echo therefore slides
 * from its place in A to its place in B instead of fading out in one place and in at another.
 * Samples are nearest-neighbour: the frames are palette images, so no new colours are made
 * beyond the cross-fade.
 *
 * The page draws this on the GPU (warp-program.ts, the same arithmetic per pixel);
 * {@link warpBlend} is its definition in JavaScript, and a browser test checks the shader's
 * pictures against it.
 */
import { motionAt, type RadarMotionField } from '../src/client/motion-field';

/** Two same-sized RGBA images and the displacement from A to B, per block of pixels. */
export interface WarpPair {
  readonly width: number;
  readonly height: number;
  /** RGBA of frame A, `width * height * 4`. */
  readonly a: Uint8ClampedArray;
  /** RGBA of frame B. */
  readonly b: Uint8ClampedArray;
  /** Side of the square blocks that share one displacement. */
  readonly block: number;
  /** Displacement A to B in pixels, eastward (+x), one per block, row-major. */
  readonly dx: Float32Array;
  /** Displacement A to B in pixels, southward (+y, image rows), one per block. */
  readonly dy: Float32Array;
}

/** Writes the interpolated picture at `t` (0 = A, 1 = B) into `out` (RGBA, same size). */
export function warpBlend(pair: WarpPair, t: number, out: Uint8ClampedArray): void {
  const { width, height, a, b, block, dx, dy } = pair;
  const blocksX = Math.ceil(width / block);
  const wa = 1 - t;
  for (let y = 0; y < height; y++) {
    const rowBlock = Math.floor(y / block) * blocksX;
    for (let x = 0; x < width; x++) {
      const k = rowBlock + Math.floor(x / block);
      const mx = dx[k]!;
      const my = dy[k]!;
      const ax = Math.round(x - t * mx);
      const ay = Math.round(y - t * my);
      const bx = Math.round(x + wa * mx);
      const by = Math.round(y + wa * my);
      const ia = ax >= 0 && ax < width && ay >= 0 && ay < height ? (ay * width + ax) * 4 : -1;
      const ib = bx >= 0 && bx < width && by >= 0 && by < height ? (by * width + bx) * 4 : -1;
      const alphaA = ia < 0 ? 0 : a[ia + 3]! * wa;
      const alphaB = ib < 0 ? 0 : b[ib + 3]! * t;
      const alpha = alphaA + alphaB;
      const o = (y * width + x) * 4;
      if (alpha <= 0) {
        out[o] = out[o + 1] = out[o + 2] = out[o + 3] = 0;
        continue;
      }
      for (let c = 0; c < 3; c++) {
        const va = ia < 0 ? 0 : a[ia + c]! * alphaA;
        const vb = ib < 0 ? 0 : b[ib + c]! * alphaB;
        out[o + c] = (va + vb) / alpha;
      }
      out[o + 3] = alpha;
    }
  }
}

/** Where an image lies on the Web Mercator world of tiles: tile zoom, its top-left, its scale. */
export interface MercatorImage {
  /** Tile zoom whose 256-pixel tiles the image is made of. */
  readonly z: number;
  /** World pixel (at zoom z) of the image's top-left corner. */
  readonly left: number;
  readonly top: number;
  /** Image pixels per world pixel (1 = full resolution, 0.5 = half). */
  readonly scale: number;
  readonly width: number;
  readonly height: number;
}

const mercatorY = (lat: number) =>
  Math.log(Math.tan(Math.PI / 4 + (Math.min(85.05, Math.max(-85.05, lat)) * Math.PI) / 360));
const latitudeOf = (my: number) => (Math.atan(Math.sinh(my)) * 180) / Math.PI;

/**
 * The displacement grid of `minutes` of `field`'s motion over `image`, in image pixels, one
 * value per `block`-pixel square (taken at its centre): the field's degrees per minute turned
 * into Web Mercator pixels at that latitude.
 */
export function displacementGrid(
  field: RadarMotionField,
  image: MercatorImage,
  minutes: number,
  block: number,
): { dx: Float32Array; dy: Float32Array } {
  const world = 256 * 2 ** image.z;
  const blocksX = Math.ceil(image.width / block);
  const blocksY = Math.ceil(image.height / block);
  const dx = new Float32Array(blocksX * blocksY);
  const dy = new Float32Array(blocksX * blocksY);
  for (let by = 0; by < blocksY; by++) {
    const worldY = image.top + ((by + 0.5) * block) / image.scale;
    const my = Math.PI * (1 - (2 * worldY) / world);
    const lat = latitudeOf(my);
    for (let bx = 0; bx < blocksX; bx++) {
      const worldX = image.left + ((bx + 0.5) * block) / image.scale;
      const lon = (worldX / world) * 360 - 180;
      const [u, v] = motionAt(field, lon, lat);
      const k = by * blocksX + bx;
      dx[k] = ((u * minutes) / 360) * world * image.scale;
      const movedY = (world / 2) * (1 - mercatorY(lat + v * minutes) / Math.PI);
      dy[k] = (movedY - worldY) * image.scale;
    }
  }
  return { dx, dy };
}
