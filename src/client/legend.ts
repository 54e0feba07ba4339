/**
 * The colour schemes and their legend (`GET /legend.json`): the document validated before use,
 * and the palette swap that shows PMTiles frames in another scheme in the browser. The
 * archives hold every tile in the default scheme; another scheme is the same pixels with
 * another PNG palette, so a page reading archives (whose bytes the service never alters)
 * recolours the tiles itself with the colours of the legend, the same rewrite the service's
 * z/x/y scheme routes apply.
 */
import type { Rgba } from '../palette/colour-schemes';
import { createPaletteRewrite, type PaletteRewrite } from '../palette/scheme-rewrite';
import { RadarResponseError } from './errors';

/** Service path of the legend. */
export const LEGEND_PATH = '/legend.json';

/** One dBZ step of one precipitation type in a scheme. */
export interface RadarLegendStep {
  /** Palette index in the tiles: rain 1..15, snow 17..31, hail 33..47. */
  readonly index: number;
  /** What the step's pixels show: `rain`, `snow` or `hail`. */
  readonly type: string;
  /** Lower bound in dBZ, inclusive. */
  readonly min: number;
  /** Upper bound in dBZ, exclusive; null for the last step. */
  readonly max: number | null;
  readonly label: string;
  /** CSS `#rrggbb`. */
  readonly color: string;
  /** Red, green, blue, alpha (0..255), as in the tiles' palette. */
  readonly rgba: Rgba;
  /** CSS opacity, alpha / 255. */
  readonly opacity: number;
}

/** One colour scheme of the legend. */
export interface RadarLegendScheme {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Path template of its z/x/y tiles (`{timestamp}`, `{z}`, `{x}`, `{y}`). */
  readonly tiles: string;
  /** Path template of its TileJSON. */
  readonly tilejson: string;
  readonly steps: readonly RadarLegendStep[];
}

/** The legend document. */
export interface RadarLegend {
  readonly units: string;
  /** Id of the scheme the archives are in. */
  readonly default: string;
  readonly transparent: { readonly index: 0; readonly rgba: Rgba; readonly label: string };
  readonly schemes: readonly RadarLegendScheme[];
}

const isChannel = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 255;
const isRgba = (v: unknown): v is Rgba => Array.isArray(v) && v.length === 4 && v.every(isChannel);

function checkScheme(value: unknown): RadarLegendScheme {
  const scheme = value as Record<string, unknown> | null;
  if (typeof scheme !== 'object' || scheme === null || typeof scheme.id !== 'string')
    throw new RadarResponseError('legend scheme has no id');
  for (const field of ['name', 'description', 'tiles', 'tilejson'])
    if (typeof scheme[field] !== 'string')
      throw new RadarResponseError(`legend scheme ${scheme.id} has no ${field}`);
  const steps = scheme.steps;
  if (!Array.isArray(steps) || steps.length === 0 || steps.length > 255)
    throw new RadarResponseError(`legend scheme ${scheme.id} has no steps`);
  const seen = new Set<unknown>();
  steps.forEach((step: Record<string, unknown>, i) => {
    if (
      !isChannel(step?.index) ||
      step.index === 0 ||
      seen.has(step.index) ||
      typeof step.type !== 'string' ||
      typeof step.min !== 'number' ||
      typeof step.label !== 'string' ||
      typeof step.color !== 'string' ||
      !isRgba(step.rgba)
    )
      throw new RadarResponseError(`legend scheme ${scheme.id}: step ${i + 1} is malformed`);
    seen.add(step.index);
  });
  return scheme as unknown as RadarLegendScheme;
}

/** Validates a parsed legend; throws {@link RadarResponseError} on any violation. */
export function parseLegend(body: unknown): RadarLegend {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RadarResponseError('legend is not a JSON object');
  const doc = body as Record<string, unknown>;
  if (!Array.isArray(doc.schemes) || doc.schemes.length === 0)
    throw new RadarResponseError('legend lists no schemes');
  const schemes = doc.schemes.map(checkScheme);
  const fallback = schemes.find((s) => s.id === doc.default);
  if (fallback === undefined) throw new RadarResponseError('legend names no default scheme');
  const indices = fallback.steps.map((step) => step.index).join();
  if (schemes.some((s) => s.steps.map((step) => step.index).join() !== indices))
    throw new RadarResponseError('legend schemes differ in their steps');
  const transparent = doc.transparent as Record<string, unknown> | undefined;
  if (transparent?.index !== 0 || !isRgba(transparent.rgba))
    throw new RadarResponseError('legend has no transparent entry');
  return doc as unknown as RadarLegend;
}

/**
 * The PNG palette of a scheme: each step's colour at its index, the transparent entry at 0 and
 * at any index no step names (16 and 32, between the type blocks).
 */
export function legendPalette(legend: RadarLegend, scheme: RadarLegendScheme): Rgba[] {
  const size = 1 + Math.max(...scheme.steps.map((step) => step.index));
  const palette: Rgba[] = new Array<Rgba>(size).fill(legend.transparent.rgba);
  for (const step of scheme.steps) palette[step.index] = step.rgba;
  return palette;
}

/**
 * `scheme` with type colours off: every step of every type in the colour of the rain step of
 * the same dBZ (what a frame without type shows).
 */
function withoutTypes(scheme: RadarLegendScheme): RadarLegendScheme {
  const rain = new Map(
    scheme.steps.filter((step) => step.type === 'rain').map((step) => [step.min, step]),
  );
  return {
    ...scheme,
    steps: scheme.steps.map((step) => {
      const same = rain.get(step.min) ?? step;
      return { ...step, color: same.color, rgba: same.rgba, opacity: same.opacity };
    }),
  };
}

/**
 * The rewrite that shows archive tiles (in the legend's default scheme) in `schemeId`, or
 * undefined for the default scheme itself with type colours on (nothing to change). With
 * `typeColours` false, snow and hail show in the scheme's rain colours. Throws `RangeError`
 * for a scheme the legend does not list.
 */
export function schemeRewrite(
  legend: RadarLegend,
  schemeId: string,
  typeColours = true,
): PaletteRewrite | undefined {
  if (schemeId === legend.default && typeColours) return undefined;
  const listed = legend.schemes.find((s) => s.id === schemeId);
  if (listed === undefined) throw new RangeError(`the legend lists no scheme ${schemeId}`);
  const scheme = typeColours ? listed : withoutTypes(listed);
  const stored = legend.schemes.find((s) => s.id === legend.default)!;
  return createPaletteRewrite(legendPalette(legend, stored), legendPalette(legend, scheme));
}
