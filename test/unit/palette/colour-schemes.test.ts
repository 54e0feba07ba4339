/**
 * The table of colour schemes: ids, one colour per dBZ step in step order, distinct colours,
 * the default equal to the renderer's palette, the grey ramp's dBZ encoding, and the claim of
 * the colour-vision-deficiency-safe scheme checked by simulation: under protanopia,
 * deuteranopia and tritanopia (Machado, Oliveira and Fernandes 2009, severity 1) its lightness
 * rises with every step and every two steps stay at least ΔE*ab 4 apart. The NWS scale fails
 * the same check, so the check can fail.
 */
import {
  COLOUR_SCHEMES,
  DEFAULT_SCHEME_ID,
  findScheme,
  SCHEME_ID_PATTERN,
  schemeRgba,
  stepLabel,
  stepRange,
} from '../../../src/palette/colour-schemes';
import { hexToRgb, paletteRgba, REFLECTIVITY_PALETTE } from '../../../src/palette/palette';

/** Machado et al. 2009 simulation matrices (severity 1.0), on linear RGB. */
const DEFICIENCIES: Record<string, number[][]> = {
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
};

const linear = (c: number) => {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
};

/** CIELAB (D65) of a colour as seen with `matrix` applied to its linear RGB. */
function labAsSeen(hex: string, matrix: number[][]): [number, number, number] {
  const rgb = hexToRgb(hex).map(linear);
  const [r, g, b] = matrix.map((row) =>
    Math.min(1, Math.max(0, row[0]! * rgb[0]! + row[1]! * rgb[1]! + row[2]! * rgb[2]!)),
  ) as [number, number, number];
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/** Where a scheme fails the CVD check, per deficiency (empty: it passes). */
function cvdProblems(colors: readonly string[]): string[] {
  const problems: string[] = [];
  for (const [name, matrix] of Object.entries(DEFICIENCIES)) {
    const lab = colors.map((c) => labAsSeen(c, matrix));
    for (let i = 1; i < lab.length; i++)
      if (!(lab[i]![0] > lab[i - 1]![0])) problems.push(`${name}: L* falls at step ${i + 1}`);
    for (let i = 0; i < lab.length; i++)
      for (let j = i + 1; j < lab.length; j++) {
        const de = Math.hypot(...lab[i]!.map((v, k) => v - lab[j]![k]!));
        if (de < 4) problems.push(`${name}: steps ${i + 1} and ${j + 1} ΔE ${de.toFixed(1)}`);
      }
  }
  return problems;
}

describe('colour schemes', () => {
  it('has the three documented schemes, the default first, with valid unique ids', () => {
    expect(COLOUR_SCHEMES.map((s) => s.id)).toEqual(['nws', 'cividis', 'grey-dbz']);
    expect(COLOUR_SCHEMES[0]!.id).toBe(DEFAULT_SCHEME_ID);
    for (const scheme of COLOUR_SCHEMES) {
      expect(scheme.id).toMatch(SCHEME_ID_PATTERN);
      expect(scheme.name.length).toBeGreaterThan(0);
      expect(scheme.description.length).toBeGreaterThan(40);
      expect(findScheme(scheme.id)).toBe(scheme);
    }
    expect(findScheme('NWS')).toBeUndefined();
    expect(findScheme('')).toBeUndefined();
    expect(Object.isFrozen(COLOUR_SCHEMES) && Object.isFrozen(COLOUR_SCHEMES[1]!.steps)).toBe(true);
  });

  it('covers every dBZ step with one distinct colour, in step order', () => {
    for (const scheme of COLOUR_SCHEMES) {
      expect(scheme.steps).toHaveLength(REFLECTIVITY_PALETTE.length);
      for (const step of scheme.steps) {
        expect(step.color).toMatch(/^#[0-9a-f]{6}$/);
        expect(Number.isInteger(step.alpha) && step.alpha > 0 && step.alpha <= 255).toBe(true);
      }
      expect(new Set(scheme.steps.map((s) => s.color)).size).toBe(scheme.steps.length);
      const rgba = schemeRgba(scheme);
      expect(rgba).toHaveLength(16);
      expect(rgba[0]).toEqual([0, 0, 0, 0]); // no echo: transparent in every scheme
    }
  });

  it('labels each palette index with its dBZ range', () => {
    expect(stepRange(1)).toEqual({ min: 5, max: 10 });
    expect(stepRange(15)).toEqual({ min: 75, max: null });
    expect(stepLabel(1)).toBe('5–10 dBZ');
    expect(stepLabel(9)).toBe('45–50 dBZ');
    expect(stepLabel(15)).toBe('≥ 75 dBZ');
    expect(() => stepRange(0)).toThrow(RangeError);
    expect(() => stepRange(16)).toThrow(RangeError);
  });

  it('nws is the palette the renderer writes', () => {
    expect(schemeRgba(findScheme('nws')!)).toEqual(paletteRgba());
  });

  it('grey-dbz encodes each step lower bound as grey dBZ + 32 (RainViewer scheme 0)', () => {
    schemeRgba(findScheme('grey-dbz')!)
      .slice(1)
      .forEach(([r, g, b, a], i) => {
        expect([r - 32, g, b, a]).toEqual([REFLECTIVITY_PALETTE[i]!.dbz, r, r, 255]);
      });
  });

  it('cividis passes the colour-vision-deficiency check', () => {
    expect(cvdProblems(findScheme('cividis')!.steps.map((s) => s.color))).toEqual([]);
  });

  it('the NWS scale fails it (the check is not vacuous)', () => {
    const problems = cvdProblems(findScheme('nws')!.steps.map((s) => s.color));
    expect(problems.some((p) => p.startsWith('deuteranopia: L* falls'))).toBe(true);
    expect(problems.some((p) => /^deuteranopia: steps .* ΔE [0-3]\./.test(p))).toBe(true);
  });
});
