/**
 * A nowcast worker that dies never takes its producer with it: a worker past its heap limit,
 * or one that exits in the middle of a frame, fails only the cycle it held (counted
 * `worker-died`, logged), `observe` keeps returning at once, and the next frames get a fresh
 * worker that publishes their forecasts through the sink.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createDirectorySink } from '../../../src/adapters/fs/frame-sink';
import { formatTimestamp } from '../../../src/domain/timestamps';
import {
  createNowcastPublisher,
  type NowcastFailureReason,
  type NowcastPublisherOptions,
} from '../../../src/forecast/nowcast-publisher';
import { SIMULATOR_FRAME_MODULE } from '../../../src/sim/simulator-frame';
import { DYING_FRAME_LOADER } from '../../fixtures/dying-frame-loader';

jest.setTimeout(120_000);

const SIMULATOR = { maxZoom: 2, seed: 7 };
const START_MS = Date.UTC(2026, 10, 28, 12, 0);
const LEADS = [10, 20];

/** `count` timestamps 2 minutes apart from `from` steps after the start. */
const frames = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => formatTimestamp(START_MS + (from + i) * 120_000));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nowcast-death-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function publisher(overrides: Partial<NowcastPublisherOptions>) {
  const failures: NowcastFailureReason[] = [];
  const lines: Array<{ msg: string; outOfMemory?: boolean }> = [];
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const p = createNowcastPublisher({
    sink: createDirectorySink(dir),
    logger: pino({ level: 'info' }, logs),
    leads: LEADS,
    loader: { module: SIMULATOR_FRAME_MODULE, options: SIMULATOR },
    events: { onFailure: (reason) => failures.push(reason) },
    ...overrides,
  });
  return { p, failures, lines };
}

test('a worker that exits mid-frame fails its cycle alone; the next frames get a fresh worker', async () => {
  const [dying] = frames(6, 1);
  const { p, failures, lines } = publisher({
    loader: { module: DYING_FRAME_LOADER, options: { simulator: SIMULATOR, exitAt: dying } },
  });
  try {
    for (const t of frames(0, 7)) p.observe(t, t); // 00..12, the worker exits on 12
    await p.idle();
    expect(failures).toContain('worker-died');
    expect(lines.some((l) => l.msg.startsWith('nowcast worker died'))).toBe(true);

    // A new worker (a new book): six frames later its first base is made.
    for (const t of frames(7, 6)) p.observe(t, t);
    await p.idle();
    const [newest] = frames(12, 1);
    const written = await readdir(dir);
    expect(written.filter((f) => f.startsWith(`forecast-${newest}-`)).sort()).toEqual([
      `forecast-${newest}-010.pmtiles`,
      `forecast-${newest}-020.pmtiles`,
    ]);
    expect(failures.filter((r) => r === 'worker-died')).toHaveLength(1);
  } finally {
    await p.close();
  }
});

test('a worker past its heap limit ends alone, counted and logged as out of memory, every time', async () => {
  // 8 MB: far below what the cycle needs, above what a worker needs to start. Below about 2 MB,
  // Node 24's V8 fails while building the worker's heap from its snapshot, a fatal error of
  // the whole process that no resource limit turns into a worker's exit.
  const { p, failures, lines } = publisher({
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1 },
  });
  try {
    for (const t of frames(0, 6)) p.observe(t, t);
    await p.idle();
    expect(failures).toEqual(['worker-died']);
    expect(lines.find((l) => l.msg.startsWith('nowcast worker died'))?.outOfMemory).toBe(true);
    // The producer goes on: later frames start a new worker (which dies the same way here).
    for (const t of frames(6, 2)) p.observe(t, t);
    await p.idle();
    expect(failures).toEqual(['worker-died', 'worker-died']);
  } finally {
    await p.close();
  }
});
