/**
 * Counts radar pixels in a browser screenshot: pixels within 2 per channel of a reflectivity
 * palette colour (rounding in the GL pipeline), split by whether they fall in a set of boxes.
 * The palette is the renderer's (NWS) unless another scheme's colours are given.
 */
import { PNG } from 'pngjs';
import { paletteRgba } from '../../src/palette/palette';

export interface PixelBox {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

/** A colour per step (index 0, the transparent entry, excluded): `[r, g, b, ...]`. */
export type StepColours = ReadonlyArray<readonly number[]>;

const lookups = new Map<string, Map<number, number>>();

function paletteLookup(colours: StepColours): Map<number, number> {
  const key = colours.map((c) => c.slice(0, 3).join()).join(';');
  let lookup = lookups.get(key);
  if (lookup) return lookup;
  lookup = new Map();
  colours.forEach(([r, g, b], index) => {
    for (let dr = -2; dr <= 2; dr++)
      for (let dg = -2; dg <= 2; dg++)
        for (let db = -2; db <= 2; db++)
          lookup!.set(((r! + dr) << 16) | ((g! + dg) << 8) | (b! + db), index);
  });
  lookups.set(key, lookup);
  return lookup;
}

/**
 * Palette pixels of `png`: total, how many fall in any of `boxes` (or where `where(x, y)` is
 * true), distinct colours seen anywhere and inside the boxes. `steps`: the colours of a scheme
 * (default: the NWS palette).
 */
export function countPalettePixels(
  png: PNG,
  boxes: readonly PixelBox[] = [],
  steps: StepColours = paletteRgba().slice(1),
  where?: (x: number, y: number) => boolean,
) {
  const colours = paletteLookup(steps);
  let total = 0;
  let inBoxes = 0;
  const seen = new Set<number>();
  const seenInBoxes = new Set<number>();
  /** Pixels per palette step (index 0 is the first colour), everywhere and in the boxes. */
  const perStep = new Array<number>(steps.length).fill(0);
  const perStepInBoxes = new Array<number>(steps.length).fill(0);
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * 4;
      const match = colours.get((png.data[i]! << 16) | (png.data[i + 1]! << 8) | png.data[i + 2]!);
      if (match === undefined) continue;
      total++;
      perStep[match]!++;
      seen.add(match);
      if (
        boxes.some((b) => x >= b.left && x <= b.right && y >= b.top && y <= b.bottom) ||
        where?.(x, y)
      ) {
        inBoxes++;
        perStepInBoxes[match]!++;
        seenInBoxes.add(match);
      }
    }
  }
  return {
    total,
    inBoxes,
    colours: seen.size,
    coloursInBoxes: seenInBoxes.size,
    perStep,
    perStepInBoxes,
  };
}

export function decodePng(bytes: Buffer): PNG {
  return PNG.sync.read(bytes);
}
