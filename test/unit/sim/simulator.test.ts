import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PMTiles } from 'pmtiles';
import { parseTimestamp } from '../../../src/domain/timestamps';
import { createSilentLogger } from '../../../src/logger';
import { createDirectorySink } from '../../../src/adapters/fs/frame-sink';
import type { FrameSink } from '../../../src/domain/producer-ports';
import { createSimulatorPool } from '../../../src/sim/simulator-frame';
import { createSimulator, type FrameProgress, type Simulator } from '../../../src/sim/simulator';
import { createBufferSource } from '../../fixtures/buffer-source';

const logger = createSilentLogger();
/** 14:03:27 UTC: the current 2-minute slot is 14:02. */
const NOW = parseTimestamp('202611221403')! + 27_000;

function memorySink(
  existing: string[] = [],
): FrameSink & { order: string[]; stored: Map<string, Buffer> } {
  const stored = new Map<string, Buffer>(existing.map((ts) => [ts, Buffer.from('old')]));
  const order: string[] = [];
  return {
    stored,
    order,
    has: async (ts) => stored.has(ts),
    put: async (ts, bytes) => {
      order.push(ts);
      if (!stored.has(ts)) stored.set(ts, bytes);
    },
  };
}

/** A pool that "renders" a timestamp into its own bytes after `delayMs`, recording concurrency. */
function fakePool(size: number, delayMs = 0, fail = new Set<string>()) {
  const state = {
    size,
    rendered: [] as string[],
    active: 0,
    maxActive: 0,
    activeAtFirstDone: 0,
    done: 0,
  };
  return Object.assign(state, {
    render: async (ts: string) => {
      state.rendered.push(ts);
      state.active++;
      state.maxActive = Math.max(state.maxActive, state.active);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      state.active--;
      state.done++;
      if (fail.has(ts)) {
        fail.delete(ts);
        throw new Error(`boom ${ts}`);
      }
      return Buffer.from(ts);
    },
  });
}

describe('simulator', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.stop();
    simulator = undefined;
    jest.useRealTimers();
  });

  it('publishes the newest frame first, then backfills newest first', async () => {
    const sink = memorySink();
    const pool = fakePool(1);
    const progress: FrameProgress[] = [];
    simulator = createSimulator({
      sink,
      pool,
      logger,
      backfill: 5,
      now: () => NOW,
      onProgress: (p) => progress.push(p),
    });
    await simulator.start();
    const expected = [
      '202611221402',
      '202611221400',
      '202611221358',
      '202611221356',
      '202611221354',
    ];
    expect(sink.order).toEqual(expected);
    expect(progress.map((p) => [p.done, p.total, p.timestamp, p.outcome, p.phase])).toEqual(
      expected.map((ts, i) => [i + 1, 5, ts, 'published', 'startup']),
    );
    expect(progress[0]!.bytes).toBe(12);
  });

  it('floors to the cadence in UTC (10-minute cadence)', async () => {
    const sink = memorySink();
    simulator = createSimulator({
      sink,
      pool: fakePool(1),
      logger,
      cadenceS: 600,
      backfill: 3,
      now: () => NOW,
    });
    await simulator.start();
    expect(sink.order).toEqual(['202611221400', '202611221350', '202611221340']);
  });

  it('skips frames the sink already has', async () => {
    const sink = memorySink(['202611221400', '202611221356']);
    const pool = fakePool(1);
    const progress: FrameProgress[] = [];
    simulator = createSimulator({
      sink,
      pool,
      logger,
      backfill: 4,
      now: () => NOW,
      onProgress: (p) => progress.push(p),
    });
    await simulator.start();
    expect(pool.rendered).toEqual(['202611221402', '202611221358']);
    expect(progress.map((p) => `${p.done}/${p.total} ${p.timestamp} ${p.outcome}`)).toEqual([
      '1/4 202611221402 published',
      '2/4 202611221400 skipped',
      '3/4 202611221358 published',
      '4/4 202611221356 skipped',
    ]);
    expect(sink.stored.get('202611221400')!.toString()).toBe('old');
  });

  it('renders the newest frame alone, then uses every worker for the backfill', async () => {
    const sink = memorySink();
    const pool = fakePool(2, 20);
    let activeWhileFirst = 0;
    simulator = createSimulator({
      sink,
      pool,
      logger,
      backfill: 6,
      now: () => NOW,
      onProgress: (p) => {
        if (p.done === 1) activeWhileFirst = pool.active;
      },
    });
    await simulator.start();
    expect(activeWhileFirst).toBe(0);
    expect(pool.rendered[0]).toBe('202611221402');
    expect(pool.maxActive).toBe(2);
    expect(pool.rendered).toEqual([...pool.rendered].sort().reverse()); // started newest first
  });

  it('reports a failed frame, finishes the startup, and retries it at the next boundary', async () => {
    jest.useFakeTimers({ now: NOW });
    const sink = memorySink();
    const pool = fakePool(1, 0, new Set(['202611221400']));
    const progress: FrameProgress[] = [];
    simulator = createSimulator({
      sink,
      pool,
      logger,
      backfill: 3,
      onProgress: (p) => progress.push(p),
    });
    const started = simulator.start();
    await jest.advanceTimersByTimeAsync(10);
    await started;
    expect(progress.map((p) => `${p.timestamp} ${p.outcome}`)).toEqual([
      '202611221402 published',
      '202611221400 failed',
      '202611221358 published',
    ]);
    expect(progress[1]!.error?.message).toMatch(/boom/);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(pool.rendered.filter((ts) => ts === '202611221400')).toHaveLength(1); // no retry loop
    // 14:04:00 boundary: the new frame first, then the failed one again.
    await jest.advanceTimersByTimeAsync(32_000);
    expect(sink.order).toEqual(['202611221402', '202611221358', '202611221404', '202611221400']);
    expect(progress.slice(3).map((p) => `${p.phase} ${p.timestamp} ${p.outcome}`)).toEqual([
      'live 202611221404 published',
      'live 202611221400 published',
    ]);
  });

  it('publishes a new frame at each cadence boundary and stops cleanly', async () => {
    jest.useFakeTimers({ now: NOW });
    const sink = memorySink();
    const pool = fakePool(1, 1_000); // each render takes 1 s of (fake) time
    simulator = createSimulator({ sink, pool, logger, backfill: 1 });
    const started = simulator.start();
    await jest.advanceTimersByTimeAsync(1_000);
    await started;
    expect(sink.order).toEqual(['202611221402']);
    await jest.advanceTimersByTimeAsync(32_000); // 14:04:00 + 0.5 s: rendering
    expect(sink.order).toEqual(['202611221402']);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(sink.order).toEqual(['202611221402', '202611221404']);
    await jest.advanceTimersByTimeAsync(120_000);
    expect(sink.order).toEqual(['202611221402', '202611221404', '202611221406']);

    // 14:08:00 + 0.5 s: a frame is in flight; stop waits for it, then nothing more happens.
    await jest.advanceTimersByTimeAsync(119_500);
    expect(pool.active).toBe(1);
    let stopped = false;
    const stopping = simulator.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(100);
    expect(stopped).toBe(false);
    await jest.advanceTimersByTimeAsync(1_000);
    await stopping;
    expect(sink.order).toEqual(['202611221402', '202611221404', '202611221406', '202611221408']);
    await jest.advanceTimersByTimeAsync(600_000);
    expect(sink.order).toHaveLength(4);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('rejects a cadence that is not a whole number of minutes, and an empty backfill', () => {
    const base = { sink: memorySink(), pool: fakePool(1), logger };
    expect(() => createSimulator({ ...base, cadenceS: 90 })).toThrow(RangeError);
    expect(() => createSimulator({ ...base, backfill: 0 })).toThrow(RangeError);
  });

  it('publishes real archives through the worker pool into a directory, newest first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simulator-'));
    const pool = createSimulatorPool({ size: 1, maxZoom: 2 });
    try {
      const order: string[] = [];
      simulator = createSimulator({
        sink: createDirectorySink(dir),
        pool,
        logger,
        backfill: 3,
        now: () => NOW,
        onProgress: (p) => order.push(p.timestamp),
      });
      await simulator.start();
      expect(order).toEqual(['202611221402', '202611221400', '202611221358']);
      expect(readdirSync(dir).sort()).toEqual([
        '202611221358.pmtiles',
        '202611221400.pmtiles',
        '202611221402.pmtiles',
      ]);
      const archive = readFileSync(join(dir, '202611221402.pmtiles'));
      const metadata = (await new PMTiles(createBufferSource(archive)).getMetadata()) as {
        timestamp: string;
      };
      expect(metadata.timestamp).toBe('202611221402');
    } finally {
      await simulator?.stop();
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
