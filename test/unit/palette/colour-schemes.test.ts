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
  storedPalette,
  typeColours,
} from '../../../src/palette/colour-schemes';
import {
  hexToRgb,
  indexMeaning,
  paletteRgba,
  PRECIP_TYPES,
  REFLECTIVITY_PALETTE,
  typedIndex,
} from '../../../src/palette/palette';

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
    expect(COLOUR_SCHEMES.map((s) => s.id)).toEqual(['nws', 'untyped', 'cividis', 'grey-dbz']);
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

  it('covers every dBZ step of every type, rain and snow in distinct colours, in step order', () => {
    for (const scheme of COLOUR_SCHEMES) {
      for (const type of PRECIP_TYPES) {
        const colours = typeColours(scheme, type);
        expect(colours).toHaveLength(REFLECTIVITY_PALETTE.length);
        for (const step of colours) {
          expect(step.color).toMatch(/^#[0-9a-f]{6}$/);
          expect(Number.isInteger(step.alpha) && step.alpha > 0 && step.alpha <= 255).toBe(true);
        }
      }
      expect(new Set(scheme.steps.map((s) => s.color)).size).toBe(scheme.steps.length);
      expect(new Set(scheme.snow.map((s) => s.color)).size).toBe(scheme.snow.length);
      const rgba = schemeRgba(scheme);
      expect(rgba).toHaveLength(48);
      // no echo: transparent in every scheme, as are the unused 16 and 32 between the blocks
      for (const index of [0, 16, 32]) expect(rgba[index]).toEqual([0, 0, 0, 0]);
      for (const type of PRECIP_TYPES)
        typeColours(scheme, type).forEach(({ color }, i) =>
          expect(rgba[typedIndex(type, i + 1)]!.slice(0, 3)).toEqual(hexToRgb(color)),
        );
    }
  });

  it('reads type and step back from every palette index', () => {
    expect(indexMeaning(0)).toBeUndefined();
    expect(indexMeaning(16)).toBeUndefined();
    expect(indexMeaning(48)).toBeUndefined();
    for (const type of PRECIP_TYPES)
      for (let step = 1; step <= 15; step++)
        expect(indexMeaning(typedIndex(type, step))).toEqual({ type, step });
  });

  it('the untyped scheme shows every type in the NWS rain colours', () => {
    const untyped = findScheme('untyped')!;
    const rain = findScheme('nws')!.steps;
    for (const type of PRECIP_TYPES) expect(typeColours(untyped, type)).toEqual(rain);
  });

  it('snow reads as snow: a ramp of blues getting lighter up to white', () => {
    for (const scheme of [findScheme('nws')!, findScheme('cividis')!]) {
      const snow = scheme.snow.map((s) => hexToRgb(s.color));
      snow.forEach(([r, g, b], i) => {
        expect(b).toBeGreaterThanOrEqual(Math.max(r, g));
        if (i > 0) expect(r + g + b).toBeGreaterThan(snow[i - 1]!.reduce((x, y) => x + y));
      });
      expect(snow[snow.length - 1]).toEqual([255, 255, 255]);
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

  it('nws is the palette the renderer writes, untyped its first 16 entries', () => {
    expect(schemeRgba(findScheme('nws')!)).toEqual(storedPalette());
    expect(storedPalette().slice(0, 16)).toEqual(paletteRgba());
  });

  it('grey-dbz encodes each step lower bound as grey dBZ + 32 (RainViewer scheme 0)', () => {
    schemeRgba(findScheme('grey-dbz')!)
      .slice(1, 16)
      .forEach(([r, g, b, a], i) => {
        expect([r - 32, g, b, a]).toEqual([REFLECTIVITY_PALETTE[i]!.dbz, r, r, 255]);
      });
  });

  it('grey-dbz carries the type: snow blue = red + 128, hail green = red + 128', () => {
    const rgba = schemeRgba(findScheme('grey-dbz')!);
    for (const type of PRECIP_TYPES)
      REFLECTIVITY_PALETTE.forEach(({ dbz }, i) => {
        const [r, g, b] = rgba[typedIndex(type, i + 1)]!;
        const read = b > r ? 'snow' : g > r ? 'hail' : 'rain';
        expect([r - 32, read]).toEqual([dbz, type]);
        expect([g - r, b - r]).toEqual(
          type === 'snow' ? [0, 128] : type === 'hail' ? [128, 0] : [0, 0],
        );
      });
  });

  it('cividis passes the colour-vision-deficiency check', () => {
    expect(cvdProblems(findScheme('cividis')!.steps.map((s) => s.color))).toEqual([]);
  });

  it('cividis keeps snow and hail apart from rain under every deficiency', () => {
    const cividis = findScheme('cividis')!;
    const colours = (type: 'rain' | 'snow' | 'hail') =>
      typeColours(cividis, type).map((s) => s.color);
    for (const [name, matrix] of Object.entries(DEFICIENCIES)) {
      const lab = (type: 'rain' | 'snow' | 'hail') =>
        colours(type).map((c) => labAsSeen(c, matrix));
      const [rain, snow, hail] = [lab('rain'), lab('snow'), lab('hail')];
      const apart = (a: number[][], b: number[][]) =>
        Math.min(...a.flatMap((x) => b.map((y) => Math.hypot(...x.map((v, k) => v - y[k]!)))));
      expect([name, apart(snow, rain) >= 15]).toEqual([name, true]);
      expect([name, apart(hail, rain) >= 15, apart(hail, snow) >= 15]).toEqual([name, true, true]);
      for (let i = 1; i < snow.length; i++) expect(snow[i]![0]).toBeGreaterThan(snow[i - 1]![0]);
    }
  });

  it('the NWS scale fails it (the check is not vacuous)', () => {
    const problems = cvdProblems(findScheme('nws')!.steps.map((s) => s.color));
    expect(problems.some((p) => p.startsWith('deuteranopia: L* falls'))).toBe(true);
    expect(problems.some((p) => /^deuteranopia: steps .* ΔE [0-3]\./.test(p))).toBe(true);
  });
});
