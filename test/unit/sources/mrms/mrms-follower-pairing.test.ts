/**
 * The follower with a flag pairing, in-memory ports and a test clock (the real feeds are
 * exercised in test/stack/mrms-typed-follow-*.test.ts): a frame whose flag has not come is
 * deferred while the others are published, then published untyped once the wait is over and
 * counted; a flag arriving later publishes nothing again.
 */
import type { FeedFile, FileFeed, FrameSink } from '../../../../src/domain/producer-ports';
import { readArchiveMetadata } from '../../../../src/pmtiles/archive-metadata';
import { createSilentLogger } from '../../../../src/logger';
import { renderFrame } from '../../../../src/render/render-frame';
import { createFlagPairing, type UntypedReason } from '../../../../src/sources/mrms/flag-pairing';
import { createMrmsFollower } from '../../../../src/sources/mrms/mrms-follower';
import type { MrmsFrameInput } from '../../../../src/sources/mrms/mrms-frame';
import { waitFor } from '../../../harness/wait';

const T0 = Date.UTC(2023, 3, 6, 12, 0, 39);
const at = (product: string, timeMs: number): FeedFile => {
  const name = `${product}-${timeMs}`;
  return { key: name, name, timeMs };
};

function listFeed(files: FeedFile[]): FileFeed & { listings: number } {
  const feed = {
    describe: 'memory',
    listings: 0,
    async newest(count: number) {
      feed.listings++;
      return [...files].sort((a, b) => b.timeMs - a.timeMs).slice(0, count);
    },
    read: async (file: FeedFile) => Buffer.from(JSON.stringify({ validTimeMs: file.timeMs })),
  };
  return feed;
}

/** A tiny real archive of the frame's valid time, noting the flag as the renderer does. */
async function convert(input: MrmsFrameInput): Promise<Buffer> {
  const { validTimeMs } = JSON.parse(Buffer.from(input.bytes).toString()) as {
    validTimeMs: number;
  };
  const note = input.flag
    ? { file: input.flag.name, used: true }
    : input.untypedReason
      ? { file: null, used: false, problem: input.untypedReason }
      : undefined;
  return renderFrame(
    {
      width: 1,
      height: 1,
      west: -100,
      north: 40,
      dLon: 0.01,
      dLat: 0.01,
      values: Float32Array.from([30]),
      noCoverage: -999,
      noEcho: -99,
      product: 'MRMS test',
      validTimeMs,
    },
    { maxZoom: 1, metadata: note ? { precipFlag: note } : {} },
  );
}

it('defers a frame without flag, publishes the others, then it untyped; a late flag changes nothing', async () => {
  const frames = [at('r', T0), at('r', T0 + 120_000)];
  const flags = [at('f', T0 - 39_000)]; // the first frame's cycle only
  const flagFeed = listFeed(flags);
  const frameFeed = listFeed(frames);
  const clock = { ms: 0 };
  const archives = new Map<string, Buffer>();
  const sink: FrameSink = {
    has: async (ts) => archives.has(ts),
    put: async (ts, bytes) => void archives.set(ts, bytes),
  };
  const converted: string[] = [];
  const untyped: UntypedReason[] = [];
  const follower = createMrmsFollower({
    feed: frameFeed,
    sink,
    convert,
    concurrency: 1,
    logger: createSilentLogger(),
    backfill: 5,
    pollMs: 5,
    events: {
      onConverted: (f) => void converted.push(f.timestamp),
      onUntyped: (reason) => void untyped.push(reason),
    },
    pairing: createFlagPairing({
      feed: flagFeed,
      product: 'f',
      waitMs: 60_000,
      maxFileBytes: 1024,
      logger: createSilentLogger(),
      now: () => clock.ms,
    }),
  });
  try {
    await follower.start();
    // The newer frame (first in the pass) waits; the older one is published, typed, meanwhile.
    expect(converted).toEqual(['202304061200']);
    expect(readArchiveMetadata(archives.get('202304061200')!).precipFlag).toEqual({
      file: `f-${T0 - 39_000}`,
      used: true,
    });
    const listings = flagFeed.listings;
    await waitFor(() => flagFeed.listings > listings + 2, 5000, 'more passes');
    expect(converted).toEqual(['202304061200']); // still waiting, passes going on

    clock.ms += 60_000;
    await waitFor(() => converted.length === 2, 5000, 'the waiting frame published');
    expect(untyped).toEqual(['no-flag']);
    const published = archives.get('202304061202')!;
    expect(readArchiveMetadata(published).precipFlag).toMatchObject({ file: null, used: false });

    // Its flag lands late, and another frame after it: that one is typed, the old one untouched.
    flags.push(at('f', T0 + 81_000), at('f', T0 + 201_000));
    frames.push(at('r', T0 + 240_000));
    await waitFor(() => converted.length === 3, 5000, 'the next frame published');
    const after = frameFeed.listings;
    await waitFor(() => frameFeed.listings > after + 2, 5000, 'more passes');
    expect(converted).toEqual(['202304061200', '202304061202', '202304061204']);
    expect(untyped).toEqual(['no-flag']);
    expect(archives.get('202304061202')).toBe(published);
  } finally {
    await follower.stop();
  }
});
