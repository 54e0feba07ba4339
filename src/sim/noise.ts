/**
 * Deterministic pseudo-randomness for the simulator: integer hashing, seeded sequences and
 * lattice value noise. Nothing here keeps state between calls, so any frame can be computed
 * from its timestamp alone, on any thread, and always gives the same pixels.
 */

// Local bindings: these run in hot loops, and inside vm contexts (jest) a global lookup such as
// `Math` costs far more than a closure variable.
const { imul, floor } = Math;

function mix32(value: number): number {
  let h = value | 0;
  h = imul(h ^ (h >>> 16), 0x85ebca6b);
  h = imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Unsigned 32-bit hash of up to four integers (non-integers are truncated to int32). */
export function hashInts(a: number, b = 0, c = 0, d = 0): number {
  let h = mix32(a ^ 0x9e3779b9);
  h = mix32(h ^ imul(b | 0, 0x27d4eb2d));
  h = mix32(h ^ imul(c | 0, 0x165667b1));
  return mix32(h ^ imul(d | 0, 0x2545f491));
}

/** A deterministic stream of uniform numbers in [0, 1). */
export type UniformSequence = () => number;

/** Seeded sequence (mulberry32): the same `seed` always yields the same numbers. */
export function createUniformSequence(seed: number): UniformSequence {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const INV_2_32 = 1 / 4294967296;

function lattice(seed: number, x: number, y: number, z: number): number {
  return hashInts(seed, x, y, z) * INV_2_32;
}

function fade(t: number): number {
  return t * t * (3 - 2 * t);
}

/**
 * Smooth value noise in [0, 1) at a point of 3-D space (x, y in lattice units; z is usually
 * time). Continuous in every coordinate, which is what makes consecutive frames blend.
 */
export function valueNoise3(seed: number, x: number, y: number, z: number): number {
  const x0 = floor(x);
  const y0 = floor(y);
  const z0 = floor(z);
  const fx = fade(x - x0);
  const fy = fade(y - y0);
  const fz = fade(z - z0);
  const c000 = lattice(seed, x0, y0, z0);
  const c100 = lattice(seed, x0 + 1, y0, z0);
  const c010 = lattice(seed, x0, y0 + 1, z0);
  const c110 = lattice(seed, x0 + 1, y0 + 1, z0);
  const c001 = lattice(seed, x0, y0, z0 + 1);
  const c101 = lattice(seed, x0 + 1, y0, z0 + 1);
  const c011 = lattice(seed, x0, y0 + 1, z0 + 1);
  const c111 = lattice(seed, x0 + 1, y0 + 1, z0 + 1);
  const x00 = c000 + (c100 - c000) * fx;
  const x10 = c010 + (c110 - c010) * fx;
  const x01 = c001 + (c101 - c001) * fx;
  const x11 = c011 + (c111 - c011) * fx;
  const y0v = x00 + (x10 - x00) * fy;
  const y1v = x01 + (x11 - x01) * fy;
  return y0v + (y1v - y0v) * fz;
}
