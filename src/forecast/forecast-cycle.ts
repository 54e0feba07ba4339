/**
 * One nowcast cycle of a producer, on the worker's thread: the motion between the base frame's
 * echo image and the one a baseline before it, the base grid (and its type grid, when typed)
 * moved along it to each lead, and each forecast drawn by the one renderer with the base
 * frame's own render options, so a forecast frame looks exactly like an observed one and its
 * metadata says what it is. Between leads it asks whether to give up (a newer frame is waiting).
 */
import { formatTimestamp, parseTimestamp } from '../domain/timestamps';
import type { CycleToRun } from '../nowcast/cycle-book';
import { echoImage, type EchoImage } from '../nowcast/echo-image';
import { advectLayers, traceBack, type Displacement } from '../nowcast/extrapolate';
import { REFLECTIVITY_SCALE } from '../nowcast/grid';
import { estimateMotion } from '../nowcast/motion';
import { encodeMotion } from '../nowcast/motion-encoding';
import { DEFAULT_NOWCAST_OPTIONS } from '../nowcast/nowcast';
import type { OpenCv } from '../nowcast/opencv';
import { renderFrame } from '../render/render-frame';
import type { LoadedFrame } from '../render/worker-job';

/** Minutes of one extrapolation step (the MRMS and simulator cadence). */
export const STEP_MINUTES = 2;
/** Minutes between the two frames the motion is measured on. */
export const BASELINE_MINUTES = DEFAULT_NOWCAST_OPTIONS.baselineSteps * STEP_MINUTES;

/** The method a forecast's metadata names (`forecast.method`). */
export const NOWCAST_METHOD =
  'radar-tiles nowcast 1: Farneback optical flow (OpenCV) on 1/4-scale echo images 10 min apart, ' +
  'backward semi-Lagrangian extrapolation in 2-min steps';

/** The echo image the motion is measured on, of a reflectivity grid. */
export function echoImageOf(frame: LoadedFrame): EchoImage {
  return echoImage(frame.grid, REFLECTIVITY_SCALE, DEFAULT_NOWCAST_OPTIONS.factor);
}

/**
 * The frame with its type codes as bytes (the same codes: NOAA's table fits in -128..127), so
 * the worker keeps and moves a CONUS type grid in 24 MB instead of 98 MB.
 */
export function compactTypes(frame: LoadedFrame): LoadedFrame {
  const { types } = frame;
  if (types === undefined || types.codes instanceof Int8Array) return frame;
  // A plain loop: `Int8Array.from` with a mapping function builds a JavaScript array of every
  // value first, 24.5 million of them, past the worker's heap limit.
  const from = types.codes;
  const codes = new Int8Array(from.length);
  for (let i = 0; i < from.length; i++) {
    const code = from[i]!;
    codes[i] = Number.isInteger(code) && code >= -128 && code <= 127 ? code : 0;
  }
  return { ...frame, types: { ...types, codes } };
}

/** Which grid and product a frame is on; frames of different identities are never paired. */
export function frameIdentity({ grid }: LoadedFrame): string {
  return `${grid.product} ${grid.width}x${grid.height} at ${grid.west},${grid.north} step ${grid.dLon}x${grid.dLat}`;
}

/** One forecast frame's archive. */
export interface ForecastArchive {
  readonly lead: number;
  readonly bytes: Buffer;
}

/**
 * Runs the cycle of `cycle` to every lead of `leads` (minutes, ascending multiples of
 * {@link STEP_MINUTES}); `undefined` when `giveUp` said yes between two leads.
 */
export async function runForecastCycle(
  cv: OpenCv,
  cycle: CycleToRun<LoadedFrame>,
  leads: readonly number[],
  giveUp: () => Promise<boolean>,
): Promise<ForecastArchive[] | undefined> {
  const { grid, types, render } = cycle.full;
  const base = formatTimestamp(cycle.baseMs);
  const baseMinuteMs = parseTimestamp(base)!;
  const motion = estimateMotion(
    cv,
    cycle.earlier,
    cycle.latest,
    DEFAULT_NOWCAST_OPTIONS.baselineSteps,
    DEFAULT_NOWCAST_OPTIONS.motion,
  );
  const encoded = encodeMotion(motion, grid, STEP_MINUTES);
  const steps = leads.map((lead) => lead / STEP_MINUTES);
  const displacements = traceBack(motion, steps);
  const archives: ForecastArchive[] = [];
  const layers = types ? ([grid.values, types.codes] as const) : ([grid.values] as const);
  // One forecast grid (and type grid) for every lead: the renderer keeps nothing of it.
  const n = grid.values.length;
  const into = types
    ? ([
        new Float32Array(n),
        types.codes instanceof Int8Array ? new Int8Array(n) : new Float32Array(n),
      ] as const)
    : ([new Float32Array(n)] as const);
  for (let i = 0; i < leads.length; i++) {
    if (await giveUp()) return undefined;
    const lead = leads[i]!;
    const displacement = displacements.next().value as Displacement;
    const [values, codes] = advectLayers(grid, layers, displacement, into);
    // The base's minute plus the lead: what the metadata's `forecast.valid` checks it against.
    const validTimeMs = baseMinuteMs + lead * 60_000;
    const bytes = renderFrame(
      { ...grid, values: values!, validTimeMs },
      {
        ...render,
        forecast: { base, lead, leads, method: NOWCAST_METHOD, motion: { ...encoded } },
      },
      types && codes && { width: types.width, height: types.height, codes },
    );
    archives.push({ lead, bytes });
  }
  return archives;
}
