/**
 * The flusher against the real file store, wrapped to fail the way a network store fails:
 * refused before applying, and applied with the reply lost.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFileUsageStore } from '../../../src/adapters/fs/usage-file';
import type { UsageStore } from '../../../src/domain/usage-ports';
import { hourOf, type UsageBatch } from '../../../src/domain/usage';
import { createSilentLogger } from '../../../src/logger';
import { createUsageFlusher, MAX_BATCH_ENTRIES } from '../../../src/serving/usage-flusher';
import { createUsageMeter } from '../../../src/serving/usage-meter';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'usage-flusher-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

type Fault = 'refuse' | 'lose-reply' | undefined;

/** The real file store; `fault` makes the next applies fail before or after applying. */
function faultyStore() {
  const real = createFileUsageStore({
    file: path.join(dir, 'usage.json'),
    retentionDays: 1,
    logger: createSilentLogger(),
  });
  const state = { fault: undefined as Fault, calls: [] as UsageBatch[] };
  const store: UsageStore = {
    ...real,
    async apply(batch) {
      state.calls.push(batch);
      if (state.fault === 'refuse') throw new Error('connection refused');
      await real.apply(batch);
      if (state.fault === 'lose-reply') throw new Error('command timed out');
    },
  };
  return { store, state, real };
}

const requestsOf = async (store: UsageStore, keyId = 'acme') => {
  const hour = hourOf(Date.now());
  const entries = await store.read(hour - 1, hour + 1, [keyId]);
  return entries.reduce((sum, e) => sum + (e.counts.requests ?? 0), 0);
};

function setup() {
  const meter = createUsageMeter({ maxEntries: 10_000 });
  const f = faultyStore();
  const events = { ok: 0, failed: 0, dropped: 0 };
  const flusher = createUsageFlusher({
    meter,
    store: f.store,
    intervalMs: 60_000,
    logger: createSilentLogger(),
    source: 'test:1',
    retryMs: 1,
    events: {
      onFlush: (o) => void events[o]++,
      onDropped: (n) => void (events.dropped += n),
    },
  });
  const count = (n: number, keyId = 'acme') => {
    for (let i = 0; i < n; i++) meter.count(keyId, '/status.json', 200, 10);
  };
  return { meter, flusher, count, events, ...f };
}

it('hands everything counted since the last flush to the store in one call', async () => {
  const { flusher, count, state, real } = setup();
  count(5);
  count(3, 'other');
  expect(await flusher.flush()).toBe(true);
  expect(state.calls).toHaveLength(1);
  expect(state.calls[0]!.entries).toHaveLength(2);
  expect(await requestsOf(real)).toBe(5);
  expect(await flusher.flush()).toBe(true);
  expect(state.calls).toHaveLength(1); // nothing new: no call
});

it('keeps a refused batch and sends it again under the same number, then what came after', async () => {
  const { flusher, count, state, real, events } = setup();
  count(4);
  state.fault = 'refuse';
  expect(await flusher.flush()).toBe(false);
  count(2);
  expect(await flusher.flush()).toBe(false);
  expect(flusher.pendingEntries()).toBe(1);
  state.fault = undefined;
  expect(await flusher.flush()).toBe(true);
  expect(state.calls.map((b) => b.seq)).toEqual([1, 1, 1, 2]);
  expect(await requestsOf(real)).toBe(6);
  expect(events).toMatchObject({ ok: 2, failed: 2 });
});

it('a batch applied whose reply was lost is sent again and counted once', async () => {
  const { flusher, count, state, real } = setup();
  count(7);
  state.fault = 'lose-reply';
  expect(await flusher.flush()).toBe(false);
  expect(await flusher.flush()).toBe(false);
  state.fault = undefined;
  count(1);
  expect(await flusher.flush()).toBe(true);
  expect(state.calls.map((b) => b.seq)).toEqual([1, 1, 1, 2]);
  expect(await requestsOf(real)).toBe(8);
});

it('splits a flush of many key-hours into batches sent in order', async () => {
  const { flusher, meter, state, real } = setup();
  for (let i = 0; i < MAX_BATCH_ENTRIES * 2 + 1; i++) meter.count(`k${i}`, '/status.json', 200, 1);
  expect(await flusher.flush()).toBe(true);
  expect(state.calls.map((b) => [b.seq, b.entries.length])).toEqual([
    [1, MAX_BATCH_ENTRIES],
    [2, MAX_BATCH_ENTRIES],
    [3, 1],
  ]);
  const hour = hourOf(Date.now());
  expect(await real.read(hour, hour)).toHaveLength(MAX_BATCH_ENTRIES * 2 + 1);
});

it('stop flushes what is left; with the store still down it reports the loss and returns', async () => {
  const a = setup();
  a.flusher.start();
  a.count(3);
  await a.flusher.stop();
  expect(await requestsOf(a.real)).toBe(3);

  const b = setup();
  b.count(2, 'bee');
  b.state.fault = 'refuse';
  await b.flusher.stop();
  expect(b.state.calls).toHaveLength(3); // three attempts
  expect(await requestsOf(b.real, 'bee')).toBe(0);
});

it('reports requests the meter dropped', async () => {
  const meter = createUsageMeter({ maxEntries: 1 });
  const { store } = faultyStore();
  let dropped = 0;
  const flusher = createUsageFlusher({
    meter,
    store,
    intervalMs: 60_000,
    logger: createSilentLogger(),
    events: { onFlush: () => {}, onDropped: (n) => void (dropped += n) },
  });
  meter.count('a', '/status.json', 200, 1);
  meter.count('b', '/status.json', 200, 1);
  await flusher.flush();
  expect(dropped).toBe(1);
});
