/**
 * The follower's rules, with in-memory ports (the real feeds, sinks, pool and lease are
 * exercised in test/stack/mrms-producer-*.test.ts): newest files first, each published once
 * under the archive's own timestamp, nothing converted again after a restart, bad input
 * counted and skipped for good, a failing source retried, one leader at a time.
 */
import type { LeaderLease } from '../../../../src/domain/ports';
import type { FeedFile, FileFeed } from '../../../../src/domain/producer-ports';
import { FeedFileError } from '../../../../src/domain/producer-ports';
import { createSilentLogger } from '../../../../src/logger';
import { RenderJobError } from '../../../../src/render/render-pool';
import {
  createMrmsFollower,
  type MrmsFailureReason,
  type MrmsFollowerOptions,
} from '../../../../src/sources/mrms/mrms-follower';
import type { MrmsFrameInput } from '../../../../src/sources/mrms/mrms-frame';
import { memorySink, tinyFrameArchive } from '../../../fixtures/follower-frames';
import { waitFor } from '../../../harness/wait';

const PRODUCT = 'ReflectivityAtLowestAltitude_00.50';
const T0 = Date.UTC(2023, 3, 6, 12, 0, 39);

function fileAt(minutesAfter: number): FeedFile {
  const t = new Date(T0 + minutesAfter * 60_000);
  const stamp = t.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const name = `MRMS_${PRODUCT}_${stamp}.grib2.gz`;
  return { key: `CONUS/${PRODUCT}/20230406/${name}`, name, timeMs: t.getTime() };
}

/** A feed over a list the test edits; `failListing` rejects that many listings. */
function memoryFeed(files: FeedFile[]) {
  const reads: string[] = [];
  const state = { failListing: 0, failReads: new Map<string, number>(), listings: 0 };
  const feed: FileFeed = {
    describe: 'memory',
    async newest(count) {
      state.listings++;
      if (state.failListing > 0) {
        state.failListing--;
        throw new Error('listing refused');
      }
      return [...files].sort((a, b) => b.timeMs - a.timeMs).slice(0, count);
    },
    async read(file) {
      reads.push(file.name);
      const failures = state.failReads.get(file.key) ?? 0;
      if (failures > 0) {
        state.failReads.set(file.key, failures - 1);
        throw new Error('connection reset');
      }
      if (!files.includes(file)) throw new FeedFileError(file.key, 'missing', 'gone');
      // The "file" carries its valid time; the converter below draws a real archive of it.
      return Buffer.from(JSON.stringify({ validTimeMs: file.timeMs }));
    },
  };
  return { feed, reads, state };
}

/** Stands in for the render pool: a real (tiny) archive of the file's valid time. */
async function convert(input: MrmsFrameInput): Promise<Buffer> {
  const text = Buffer.from(input.bytes).toString();
  if (text === 'corrupt') throw new RenderJobError(`${input.name}: bad`, 'Grib2Error');
  if (text === 'precip') throw new RenderJobError(`${input.name}: not`, 'MrmsProductError');
  const { validTimeMs } = JSON.parse(text) as { validTimeMs: number };
  return tinyFrameArchive(validTimeMs, 2);
}

function counting() {
  const failures: MrmsFailureReason[] = [];
  const converted: string[] = [];
  const skipped: string[] = [];
  return {
    failures,
    converted,
    skipped,
    events: {
      onFailure: (r: MrmsFailureReason) => void failures.push(r),
      onConverted: (f: { timestamp: string }) => void converted.push(f.timestamp),
      onSkipped: (ts: string) => void skipped.push(ts),
    },
  };
}

/** Every follower a test made: stopped after each test, so a failing test ends fast, named. */
const made: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((f) => f.stop()));
});

function follower(
  overrides: Partial<MrmsFollowerOptions> & Pick<MrmsFollowerOptions, 'feed' | 'sink'>,
) {
  const created = createMrmsFollower({
    convert,
    concurrency: 1,
    logger: createSilentLogger(),
    backfill: 3,
    pollMs: 20,
    retry: { attempts: 3, baseMs: 5, maxMs: 50 },
    ...overrides,
  });
  made.push(created);
  return created;
}

it('backfills the newest files, newest first, each under its valid time; restarts convert nothing', async () => {
  const files = [0, 2, 4, 6, 8].map(fileAt);
  const { feed, reads } = memoryFeed(files);
  const { sink, archives, puts } = memorySink();
  const first = counting();
  const a = follower({ feed, sink, events: first.events });
  await a.start();
  await a.stop();
  expect(puts).toEqual(['202304061208', '202304061206', '202304061204']);
  expect(first.converted).toEqual(puts);
  expect(first.failures).toEqual([]);
  expect(a.newestValidTimeMs()).toBe(T0 + 8 * 60_000);
  expect(reads).toHaveLength(3);

  // A restart: the sink has every frame; nothing is downloaded, converted or uploaded again.
  const second = counting();
  const b = follower({ feed, sink, events: second.events });
  await b.start();
  await b.stop();
  expect(reads).toHaveLength(3);
  expect(puts).toHaveLength(3);
  expect(second.converted).toEqual([]);
  expect(second.skipped).toEqual(['202304061208', '202304061206', '202304061204']);
  expect(b.newestValidTimeMs()).toBe(T0 + 8 * 60_000);
  expect([...archives.keys()].sort()).toEqual(['202304061204', '202304061206', '202304061208']);
});

it('picks up each new file at the next poll', async () => {
  const files = [fileAt(0)];
  const { feed } = memoryFeed(files);
  const { sink, puts } = memorySink();
  const f = follower({ feed, sink });
  await f.start();
  expect(puts).toEqual(['202304061200']);
  files.push(fileAt(2));
  await waitFor(() => puts.length === 2, 5000, 'the new file published');
  await f.stop();
  expect(puts).toEqual(['202304061200', '202304061202']);
});

it('counts and skips bad files for good, and keeps publishing the others', async () => {
  const files = [0, 2, 4].map(fileAt);
  const { feed, state } = memoryFeed(files);
  const read = feed.read.bind(feed);
  const readsOf = new Map<string, number>();
  feed.read = async (file, max) => {
    readsOf.set(file.name, (readsOf.get(file.name) ?? 0) + 1);
    if (file === files[1]) return Buffer.from('corrupt');
    if (file === files[2]) return Buffer.from('precip');
    return read(file, max);
  };
  const { sink, puts } = memorySink();
  const c = counting();
  const f = follower({ feed, sink, events: c.events, pollMs: 5 });
  await f.start();
  const passes = state.listings;
  await waitFor(() => state.listings >= passes + 3, 5000, 'three more passes');
  await f.stop();
  expect(puts).toEqual(['202304061200']);
  expect(c.failures.sort()).toEqual(['bad-file', 'not-reflectivity']);
  // Each file was read once: the bad ones are not fetched again at later passes.
  expect([...readsOf.values()]).toEqual([1, 1, 1]);
});

it('retries a failing listing with backoff and a failing download within the pass', async () => {
  const files = [fileAt(0), fileAt(2)];
  const { feed, state } = memoryFeed(files);
  state.failListing = 3;
  state.failReads.set(files[1]!.key, 2); // two resets, then the bytes
  const { sink, puts } = memorySink();
  const c = counting();
  const f = follower({ feed, sink, events: c.events });
  await f.start(); // the first pass fails: start resolves, the follower keeps trying
  await waitFor(() => puts.length === 2, 10_000, 'both frames published');
  await f.stop();
  expect(puts).toEqual(['202304061202', '202304061200']);
  expect(c.failures).toEqual(['source', 'source', 'source', 'source', 'source']);
  expect(state.listings).toBeGreaterThanOrEqual(4);
});

it('gives a download up after the attempts of a pass, and tries again at the next pass', async () => {
  const files = [fileAt(0)];
  const { feed, state } = memoryFeed(files);
  state.failReads.set(files[0]!.key, 4); // 3 attempts in the first pass, the 4th fails too
  const { sink, puts } = memorySink();
  const c = counting();
  const f = follower({ feed, sink, events: c.events });
  await f.start();
  expect(puts).toEqual([]);
  await waitFor(() => puts.length === 1, 10_000, 'published at a later pass');
  await f.stop();
  expect(c.failures).toEqual(['source', 'source', 'source', 'source']);
});

it('skips a file that left the source, counted as a source failure', async () => {
  const files = [fileAt(0)];
  const { feed } = memoryFeed(files);
  const read = feed.read.bind(feed);
  feed.read = (file, max) => (files.length === 1 ? read(fileAt(99), max) : read(file, max));
  const { sink, puts } = memorySink();
  const c = counting();
  const f = follower({ feed, sink, events: c.events });
  await f.start();
  await f.stop();
  expect(puts).toEqual([]);
  expect(c.failures).toEqual(['source']);
});

it('with a shared lease only the holder works; the other takes over when it stops', async () => {
  let holder: string | undefined;
  const lease = (owner: string): LeaderLease => ({
    acquire: async () => {
      holder ??= owner;
      return holder === owner;
    },
    release: async () => {
      if (holder === owner) holder = undefined;
    },
  });
  const files = [fileAt(0), fileAt(2)];
  const { feed } = memoryFeed(files);
  const { sink, puts } = memorySink();
  const ca = counting();
  const cb = counting();
  const a = follower({ feed, sink, lease: lease('a'), leaseRenewMs: 10, events: ca.events });
  const b = follower({ feed, sink, lease: lease('b'), leaseRenewMs: 10, events: cb.events });
  await a.start();
  await b.start();
  expect([a.isLeader(), b.isLeader()]).toEqual([true, false]);
  expect(ca.converted).toHaveLength(2);
  await a.stop(); // releases the lease
  files.push(fileAt(4));
  await waitFor(() => b.isLeader() && puts.length === 3, 5000, 'b leads and publishes');
  await b.stop();
  expect(ca.converted).toEqual(['202304061202', '202304061200']);
  expect(cb.converted).toEqual(['202304061204']);
  expect(cb.skipped.sort()).toEqual(['202304061200', '202304061202']);
  expect(puts).toEqual(['202304061202', '202304061200', '202304061204']);
});

it('skips and counts once each file named past the clock; it never takes a place in the window', async () => {
  const files = [0, 2, 4].map(fileAt);
  // Later today, and a day ahead: neither is a frame yet.
  const ahead = [fileAt(300), fileAt(24 * 60)];
  const { feed, state, reads } = memoryFeed([...files, ...ahead]);
  const { sink, puts } = memorySink();
  const c = counting();
  const f = follower({ feed, sink, events: c.events, pollMs: 5, now: () => T0 + 5 * 60_000 });
  await f.start();
  const passes = state.listings;
  await waitFor(() => state.listings >= passes + 3, 5000, 'three more passes');
  await f.stop();
  expect(puts).toEqual(['202304061204', '202304061202', '202304061200']);
  expect(c.failures).toEqual(['future-name', 'future-name']);
  expect(reads).not.toContain(ahead[0]!.name);
  expect(reads).not.toContain(ahead[1]!.name);
});
