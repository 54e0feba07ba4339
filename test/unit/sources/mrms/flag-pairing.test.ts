/**
 * Follow mode's pairing rules with an in-memory flag feed and a test clock (the real feeds and
 * files are exercised end to end in test/stack/mrms-typed-follow-*.test.ts): the nearest flag
 * within 60 s pairs, another cycle never does, a missing flag is waited for until the
 * deadline (kept across passes) and then reported untyped, a refused flag file types nothing
 * at once, a flag that fails in transit is tried again until the deadline.
 */
import { FeedFileError, type FeedFile, type FileFeed } from '../../../../src/domain/producer-ports';
import { createSilentLogger } from '../../../../src/logger';
import {
  createFlagPairing,
  NO_PAIRING,
  untypedReason,
} from '../../../../src/sources/mrms/flag-pairing';
import { typeSource } from '../../../../src/sources/mrms/mrms-settings';

const CYCLE = Date.UTC(2023, 3, 6, 12, 0, 0);
const FRAME: FeedFile = {
  key: 'r/1200',
  name: 'MRMS_R_00.50_20230406-120039.grib2.gz',
  timeMs: CYCLE + 39_000,
};

const flagAt = (timeMs: number): FeedFile => ({
  key: `f/${timeMs}`,
  name: `flag-${timeMs}`,
  timeMs,
});

function setup(flags: FeedFile[], read?: (file: FeedFile) => Promise<Buffer>) {
  const clock = { ms: 1_000_000 };
  const feed: FileFeed = {
    describe: 'memory flags',
    newest: async (count) => [...flags].sort((a, b) => b.timeMs - a.timeMs).slice(0, count),
    read: read ?? (async (file) => Buffer.from(file.name)),
  };
  const pairing = createFlagPairing({
    feed,
    product: 'PrecipFlag_00.00',
    waitMs: 60_000,
    maxFileBytes: 1024,
    logger: createSilentLogger(),
    now: () => clock.ms,
  });
  return { pairing, clock, flags };
}

it('pairs the nearest flag file within 60 s of the frame', async () => {
  const { pairing } = setup([flagAt(CYCLE - 120_000), flagAt(CYCLE), flagAt(CYCLE + 120_000)]);
  await pairing.refresh(10);
  expect(await pairing.decide(FRAME)).toEqual({
    wait: false,
    flag: { name: `flag-${CYCLE}`, bytes: Buffer.from(`flag-${CYCLE}`) },
  });
});

it('never pairs another cycle: waits, then publishes untyped once the wait is over', async () => {
  const { pairing, clock } = setup([flagAt(CYCLE - 120_000), flagAt(CYCLE + 120_000)]);
  await pairing.refresh(10);
  expect(await pairing.decide(FRAME)).toEqual({ wait: true });
  clock.ms += 59_999;
  expect(await pairing.decide(FRAME)).toEqual({ wait: true }); // the deadline is kept
  clock.ms += 1;
  expect(await pairing.decide(FRAME)).toEqual({
    wait: false,
    untyped: {
      reason: 'no-flag',
      problem: expect.stringMatching(/no PrecipFlag_00.00 file within 60 s .* after waiting 60 s/),
    },
  });
});

it('a flag that comes within the wait pairs; the deadline is forgotten once decided', async () => {
  const { pairing, clock, flags } = setup([]);
  await pairing.refresh(10);
  expect(await pairing.decide(FRAME)).toEqual({ wait: true });
  clock.ms += 30_000;
  flags.push(flagAt(CYCLE));
  await pairing.refresh(10);
  expect(await pairing.decide(FRAME)).toMatchObject({
    wait: false,
    flag: { name: `flag-${CYCLE}` },
  });
  // Offered again (say the upload failed): a fresh wait, not the old deadline.
  flags.length = 0;
  await pairing.refresh(10);
  clock.ms += 40_000;
  expect(await pairing.decide(FRAME)).toEqual({ wait: true });
});

it('a flag file the feed refuses types nothing, at once', async () => {
  const { pairing } = setup([flagAt(CYCLE)], async (file) => {
    throw new FeedFileError(file.key, 'too-large', 'larger than 1024 bytes');
  });
  await pairing.refresh(10);
  expect(await pairing.decide(FRAME)).toEqual({
    wait: false,
    untyped: { reason: 'bad-flag', problem: expect.stringContaining('larger than 1024 bytes') },
  });
});

it('a flag read that fails in transit is tried again until the deadline', async () => {
  const { pairing, clock } = setup([flagAt(CYCLE)], async () => {
    throw new Error('connection reset');
  });
  await pairing.refresh(10);
  expect(await pairing.decide(FRAME)).toEqual({ wait: true });
  clock.ms += 60_000;
  expect(await pairing.decide(FRAME)).toEqual({
    wait: false,
    untyped: { reason: 'no-flag', problem: expect.stringContaining('connection reset') },
  });
});

it('a failed flag listing keeps the last one and the deadline runs on', async () => {
  let fail = false;
  const { pairing, clock } = setup([flagAt(CYCLE)]);
  await pairing.refresh(10);
  const feedFailing = createFlagPairing({
    feed: {
      describe: 'failing',
      newest: async () => {
        if (fail) throw new Error('listing refused');
        return [];
      },
      read: async () => Buffer.alloc(0),
    },
    product: 'PrecipFlag_00.00',
    waitMs: 0,
    maxFileBytes: 1,
    logger: createSilentLogger(),
    now: () => clock.ms,
  });
  fail = true;
  await expect(feedFailing.refresh(10)).resolves.toBeUndefined();
  expect(await feedFailing.decide(FRAME)).toMatchObject({ untyped: { reason: 'no-flag' } });
  expect(await pairing.decide(FRAME)).toMatchObject({ wait: false, flag: {} });
});

it('retain forgets the deadlines of files no longer offered', async () => {
  const { pairing, clock } = setup([]);
  await pairing.refresh(10);
  expect(await pairing.decide(FRAME)).toEqual({ wait: true });
  pairing.retain(new Set());
  clock.ms += 60_000;
  expect(await pairing.decide(FRAME)).toEqual({ wait: true }); // a new wait from now
});

it('without pairing every frame is converted at once; the archive note names a bad flag', async () => {
  expect(await NO_PAIRING.decide(FRAME)).toEqual({ wait: false });
  expect(untypedReason({ wait: false }, {})).toBeUndefined();
  expect(untypedReason({ wait: false }, { flag: { file: 'f', used: true } })).toBeUndefined();
  expect(untypedReason({ wait: false }, { flag: { file: 'f', used: false, problem: 'x' } })).toBe(
    'bad-flag',
  );
  expect(untypedReason({ wait: false, untyped: { reason: 'no-flag', problem: 'late' } }, {})).toBe(
    'no-flag',
  );
});

describe('typeSource: where the flag product lies in the same source', () => {
  const P = 'ReflectivityAtLowestAltitude_00.50';
  const F = 'PrecipFlag_00.00';
  it('a product folder has the flag in its sibling folder', () => {
    const s3 = {
      kind: 's3',
      endpoint: 'e',
      region: 'r',
      bucket: 'b',
      prefix: `CONUS/${P}/`,
    } as const;
    expect(typeSource(s3, P, F)).toEqual({ ...s3, prefix: `CONUS/${F}/` });
    expect(typeSource({ kind: 'http', url: `https://h/data/${P}/` }, P, F)).toEqual({
      kind: 'http',
      url: `https://h/data/${F}/`,
    });
    expect(typeSource({ kind: 'dir', dir: `/srv/CONUS/${P}` }, P, F)).toEqual({
      kind: 'dir',
      dir: `/srv/CONUS/${F}`,
    });
  });
  it('a folder named without the level, as in NOAA’s HTTP listings, has the flag likewise', () => {
    expect(
      typeSource(
        { kind: 'http', url: 'https://mrms.ncep.noaa.gov/data/2D/ReflectivityAtLowestAltitude/' },
        P,
        F,
      ),
    ).toEqual({ kind: 'http', url: 'https://mrms.ncep.noaa.gov/data/2D/PrecipFlag/' });
    expect(typeSource({ kind: 'dir', dir: '/srv/2D/ReflectivityAtLowestAltitude' }, P, F)).toEqual({
      kind: 'dir',
      dir: '/srv/2D/PrecipFlag',
    });
  });
  it('any other source is searched as it is', () => {
    const s3 = { kind: 's3', endpoint: 'e', region: 'r', bucket: 'b', prefix: '' } as const;
    expect(typeSource(s3, P, F)).toBe(s3);
    const dir = { kind: 'dir', dir: '/srv/feed' } as const;
    expect(typeSource(dir, P, F)).toBe(dir);
    const http = { kind: 'http', url: 'https://h/data/' } as const;
    expect(typeSource(http, P, F)).toBe(http);
  });
});
