/**
 * An MRMS frame: the bytes of one MRMS GRIB2 file (gzip or plain) in, its archive out,
 * decoded by the GRIB2 reader and drawn by the one renderer. This is the unit of work the
 * MRMS producer's render pool runs off the main thread (its job module is this file), so
 * neither decoding nor rendering blocks a process that also answers requests.
 */
import { formatTimestamp } from '../../domain/timestamps';
import { readArchiveMetadata } from '../../pmtiles/archive-metadata';
import { movable } from '../../render/movable-view';
import { createRenderPool, type RenderPool } from '../../render/render-pool';
import { checkFrameRenderOptions, renderFrame } from '../../render/render-frame';
import {
  type FrameLoader,
  jobModulePath,
  type LoadedFrame,
  type WorkerJob,
} from '../../render/worker-job';
import type { PrecipTypeGrid } from '../../domain/precip-type-grid';
import type { ReflectivityGrid } from '../../domain/reflectivity-grid';
import { Grib2Error } from './grib2/grib2-error';
import type { LatLonGrid } from './grib2/types';
import { readGrib2 } from './grib2/read-grib2';
import { MRMS_GRIB2_LIMITS, mrmsRenderAreaProblem } from './mrms-limits';
import { mrmsReflectivityGrid } from './mrms-grid';
import { baseName } from './mrms-file-name';
import { pairingProblem, precipFlagFrame } from './mrms-precip-flag';

/** Options of a frame; plain data so they can cross to a worker. */
export interface MrmsFrameOptions {
  /** Highest zoom rendered (default 7: a z7 pixel is about one MRMS cell). */
  readonly maxZoom?: number;
  /** zlib level of tile PNGs (default 6). */
  readonly pngLevel?: number;
}

/** One file to convert: its name (for errors and metadata) and its bytes. */
export interface MrmsFrameInput {
  readonly name: string;
  readonly bytes: Uint8Array;
  /**
   * The PrecipFlag file paired with it, if any. A flag that cannot type the frame (not GRIB2,
   * not PrecipFlag, another grid, more than 60 s away) never fails the conversion: the frame is
   * rendered untyped and its metadata's `precipFlag.problem` says why.
   */
  readonly flag?: { readonly name: string; readonly bytes: Uint8Array };
  /** Why no flag was given, recorded in the metadata (follow mode: the wait ran out). */
  readonly untypedReason?: string;
}

/**
 * What an MRMS archive's metadata says of its type (`precipFlag`): the flag file used, or why
 * none typed the frame. The renderer's own `precipitationType.typed` says whether pixels carry
 * a type.
 */
export interface MrmsFlagNote {
  /** Base name of the flag file, or null when none was given (the producer waited in vain). */
  readonly file: string | null;
  /** Whether the flag typed the frame. */
  readonly used: boolean;
  /** Why not, in words (absent when used). */
  readonly problem?: string;
}

/** Name of the producer, recorded in every MRMS archive's metadata. */
const MRMS_GENERATOR = 'radar-tiles mrms 1';

/** Header centre of MRMS archives: the middle of CONUS. */
const CENTER = { lon: -96, lat: 38, zoom: 4 };

/**
 * The archive of one MRMS file, within the caps of `mrms-limits.ts` (points, inflated bytes,
 * rendered tiles: a file past them is refused before its values are decoded). Throws
 * `Grib2Error` (the file does not decode) or `MrmsProductError` (it decodes but is no
 * reflectivity grid), both naming the file. With `input.flag` the frame is typed when the flag
 * pairs, untyped otherwise (never an error); without one, `input.untypedReason` (e.g. "no
 * flag within the wait") is recorded as the reason.
 */
export function convertMrmsFile(input: MrmsFrameInput, options: MrmsFrameOptions = {}): Buffer {
  const { grid, types, render } = loadMrmsFrame(input, options);
  return renderFrame(grid, render, types);
}

/**
 * The grid of one MRMS file and how {@link convertMrmsFile} renders it (typed when its flag
 * pairs): what the nowcast worker reads a base frame from. Throws as {@link convertMrmsFile}.
 */
export function loadMrmsFrame(input: MrmsFrameInput, options: MrmsFrameOptions = {}): LoadedFrame {
  const maxZoom = options.maxZoom ?? 7;
  const fields = readGrib2(input.bytes, input.name, mrmsReadOptions(maxZoom));
  const grid = mrmsReflectivityGrid(fields, input.name);
  const { types, note } = pairFlag(grid, input.flag, input.untypedReason, maxZoom);
  return {
    grid,
    ...(types === undefined ? {} : { types }),
    render: {
      maxZoom,
      pngLevel: options.pngLevel,
      center: [CENTER.lon, CENTER.lat, Math.min(CENTER.zoom, maxZoom)],
      metadata: {
        attribution: 'NOAA/NSSL Multi-Radar Multi-Sensor (MRMS)',
        generator: MRMS_GENERATOR,
        source: baseName(input.name),
        ...(note === undefined ? {} : { precipFlag: note }),
      },
    },
  };
}

/** The reader's caps for any MRMS input, reflectivity or flag: refused before decoding. */
const mrmsReadOptions = (maxZoom: number) => ({
  limits: MRMS_GRIB2_LIMITS,
  acceptGrid: (grid: LatLonGrid) => mrmsRenderAreaProblem(grid, maxZoom),
});

/**
 * The type grid of `flag` for `grid`, or none and why. Every way a flag can fail (it does not
 * decode, it is another product, another grid, another cycle) ends in an untyped frame.
 */
function pairFlag(
  grid: ReflectivityGrid,
  flag: MrmsFrameInput['flag'],
  untypedReason: string | undefined,
  maxZoom: number,
): { types?: PrecipTypeGrid; note?: MrmsFlagNote } {
  if (flag === undefined)
    return untypedReason === undefined
      ? {}
      : { note: { file: null, used: false, problem: untypedReason } };
  const file = baseName(flag.name);
  let problem: string | undefined;
  try {
    const frame = precipFlagFrame(readGrib2(flag.bytes, flag.name, mrmsReadOptions(maxZoom)));
    if (typeof frame === 'string') problem = frame;
    else {
      problem = pairingProblem(grid, frame);
      if (problem === undefined) return { types: frame.types, note: { file, used: true } };
    }
  } catch (error) {
    // A flag that does not decode is a bad flag, not a bad frame.
    if (!(error instanceof Grib2Error)) throw error;
    problem = error.message;
  }
  return { note: { file, used: false, problem } };
}

/** What an MRMS archive says about itself: its timestamp and exact valid time. */
export interface MrmsArchiveFacts {
  /** `YYYYMMDDHHmm`: the valid time truncated to the minute, the archive's name. */
  readonly timestamp: string;
  readonly validTimeMs: number;
  /** The flag note (`precipFlag`), when a flag was given or waited for. */
  readonly flag?: MrmsFlagNote;
}

/** Reads the timestamp and valid time the renderer wrote into `archive`'s metadata. */
export function mrmsArchiveFacts(archive: Uint8Array): MrmsArchiveFacts {
  const metadata = readArchiveMetadata(archive);
  const validTimeMs = Date.parse(String(metadata.validTime));
  if (!Number.isFinite(validTimeMs) || metadata.timestamp !== formatTimestamp(validTimeMs))
    throw new Error('archive metadata has no consistent timestamp and validTime');
  const flag = metadata.precipFlag as MrmsFlagNote | undefined;
  return { timestamp: metadata.timestamp, validTimeMs, ...(flag ? { flag } : {}) };
}

/**
 * Heap limits of an MRMS render worker. A CONUS conversion keeps under 10 MB of JavaScript heap
 * (its grids are typed arrays outside the heap, bounded by `mrms-limits.ts`), so 256 MB is a
 * wide margin; a job past it ends its worker only, and the file is refused.
 */
export const MRMS_WORKER_LIMITS = Object.freeze({ maxOldGenerationSizeMb: 256 });

/** Options of {@link createMrmsPool}: what every worker renders, and how many workers. */
export interface MrmsPoolOptions extends MrmsFrameOptions {
  /** Worker threads (1 or 2: each holds a whole decoded mosaic while it works). */
  readonly size: number;
}

/**
 * A render pool whose workers convert MRMS files: `render({ name, bytes }, transfer)` decodes
 * and renders off the caller's thread (`movable(bytes)` gives the bytes to send and what to
 * transfer). Options are checked here, so a bad zoom fails at once. A failed job rejects with
 * a `RenderJobError` whose `jobErrorName` is the worker's error class (`Grib2Error`,
 * `MrmsProductError`, ...).
 */
export function createMrmsPool(options: MrmsPoolOptions): RenderPool<MrmsFrameInput> {
  const { size, ...frame } = options;
  checkFrameRenderOptions(frame);
  return createRenderPool<MrmsFrameInput>({
    size,
    job: { module: MRMS_FRAME_MODULE, options: frame },
    resourceLimits: MRMS_WORKER_LIMITS,
  });
}

/**
 * `input` ready to post to a worker (the render pool's or the nowcast's): its file's and its
 * flag's bytes through {@link movable}, and the buffers to transfer. With `copy` both are first
 * copied, so the caller's bytes stay whole for a second worker after this one.
 */
export function movableMrmsInput(
  input: MrmsFrameInput,
  copy = false,
): { readonly input: MrmsFrameInput; readonly transfer: ArrayBuffer[] } {
  const own = (bytes: Uint8Array) => movable(copy ? new Uint8Array(bytes) : bytes);
  const bytes = own(input.bytes);
  const flag = input.flag && own(input.flag.bytes);
  return {
    input: {
      ...input,
      bytes: bytes.view,
      flag: input.flag && flag && { ...input.flag, bytes: flag.view },
    },
    transfer: [...bytes.transfer, ...(flag?.transfer ?? [])],
  };
}

/** This module as a job module: the render pool's job, and the nowcast's frame loader. */
export const MRMS_FRAME_MODULE = jobModulePath(__filename);

/** Worker side of {@link createMrmsPool}: inputs are `{ name, bytes, flag?, untypedReason? }`. */
export function createWorkerJob(options: unknown): WorkerJob {
  const frame = options as MrmsFrameOptions;
  return (input) => convertMrmsFile(input as MrmsFrameInput, frame);
}

/** Nowcast side of the same module: inputs are those of the pool, the grid comes back. */
export function createFrameLoader(options: unknown): FrameLoader {
  const frame = options as MrmsFrameOptions;
  return (input) => loadMrmsFrame(input as MrmsFrameInput, frame);
}
