/**
 * The archives every scenario reads: real simulator frames (`createSimulatorFrameRenderer`, the same
 * code that produces production-shaped archives), rendered once per machine and kept under
 * `.tmp/bench/frames/` (git-ignored), then published under timestamps ending at the current
 * even UTC minute so they are fresh, in retention and `latest` is healthy.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { formatTimestamp, parseTimestamp } from '../../src/domain/timestamps';
import { createSimulatorFrameRenderer } from '../../src/sim/simulator-frame';

/** Weather instants rendered (fixed, so the cache stays valid); frame 0 is the newest. */
const WEATHER_NEWEST_MS = Date.UTC(2026, 6, 1, 18, 0);
const CADENCE_MS = 120_000;

export interface Frame {
  /** Timestamp the archive is published under in this run. */
  readonly timestamp: string;
  readonly bytes: Buffer;
}

/** `count` frames, newest first, rendered at `maxZoom` (cached across runs). */
export async function loadFrames(options: {
  count: number;
  maxZoom: number;
  cacheDir: string;
  nowMs?: number;
  log?: (line: string) => void;
}): Promise<Frame[]> {
  const dir = path.join(options.cacheDir, `frames-z${options.maxZoom}`);
  await fs.mkdir(dir, { recursive: true });
  const newestMs = Math.floor((options.nowMs ?? Date.now()) / CADENCE_MS) * CADENCE_MS;
  let renderer: ReturnType<typeof createSimulatorFrameRenderer> | undefined;
  let rendered = 0;
  const frames: Frame[] = [];
  for (let i = 0; i < options.count; i++) {
    const file = path.join(dir, `frame-${String(i).padStart(4, '0')}.pmtiles`);
    let bytes: Buffer | undefined = await fs.readFile(file).catch(() => undefined);
    if (!bytes) {
      renderer ??= createSimulatorFrameRenderer({ maxZoom: options.maxZoom });
      bytes = renderer.render(formatTimestamp(WEATHER_NEWEST_MS - i * CADENCE_MS));
      await fs.writeFile(`${file}.tmp`, bytes);
      await fs.rename(`${file}.tmp`, file);
      rendered += 1;
    }
    frames.push({ timestamp: formatTimestamp(newestMs - i * CADENCE_MS), bytes });
  }
  if (rendered > 0) options.log?.(`rendered ${rendered} simulator frames into ${dir}`);
  return frames;
}

/** Timestamps `count` cadence steps older than the oldest of `frames`, newest first. */
export function olderTimestamps(frames: readonly Frame[], count: number): string[] {
  const oldestMs = parseTimestamp(frames.at(-1)!.timestamp)!;
  return Array.from({ length: count }, (_, i) => formatTimestamp(oldestMs - (i + 1) * CADENCE_MS));
}

/** A run of a one-row bench script: its directories, frames, and what to stop at the end. */
export interface RowRun {
  readonly runDir: string;
  readonly logDir: string;
  readonly frames: Frame[];
  /** Stoppers of what the script started; `close` runs them last-first. */
  readonly stops: Array<() => Promise<void>>;
  /** Stops everything started (errors ignored) and removes the run directory. */
  close(): Promise<void>;
}

/**
 * The setup and teardown the one-row bench scripts share (`idle-cpu.ts`, `pipeline-cost.ts`):
 * a fresh run directory with `logs/`, and the 10 frames at zoom 7 they publish (rendered once,
 * cached in `.tmp/bench`).
 */
export async function startRowRun(prefix: string): Promise<RowRun> {
  const runDir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const logDir = path.join(runDir, 'logs');
  await fs.mkdir(logDir, { recursive: true });
  const frames = await loadFrames({
    count: 10,
    maxZoom: 7,
    cacheDir: path.resolve(__dirname, '../../.tmp/bench'),
  });
  const stops: Array<() => Promise<void>> = [];
  return {
    runDir,
    logDir,
    frames,
    stops,
    async close() {
      for (const stop of stops.reverse()) await stop().catch(() => {});
      await fs.rm(runDir, { recursive: true, force: true });
    },
  };
}
