/**
 * The follower's verdicts on files, with in-memory feeds and a real verdict file: a file
 * refused while incomplete is tried again once its version changes; a feed's refusal of a
 * special file is counted as a bad file; a read that never returns does not hold up `stop`;
 * and a file whose conversion never ended twice (it killed the process) is refused by the
 * next follower sharing the verdict store, which then publishes the files after it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFileVerdicts } from '../../../../src/adapters/fs/file-verdict-file';
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

const T0 = Date.UTC(2023, 3, 6, 12, 0, 39);

function fileAt(minutesAfter: number, version?: string): FeedFile {
  const name = `MRMS_ReflectivityAtLowestAltitude_00.50_20230406-12${String(minutesAfter).padStart(2, '0')}39.grib2.gz`;
  return { key: `feed/${name}`, name, timeMs: T0 + minutesAfter * 60_000, version };
}

/** The bytes a file holds: `good` (an archive of its time), `corrupt`, or a hang. */
type Content = 'good' | 'corrupt' | 'hang' | 'fifo';

function feedOf(files: Map<string, { file: FeedFile; content: Content }>) {
  const reads: string[] = [];
  const feed: FileFeed = {
    describe: 'memory',
    newest: async (count) =>
      [...files.values()]
        .map((e) => e.file)
        .sort((a, b) => b.timeMs - a.timeMs)
        .slice(0, count),
    async read(file) {
      reads.push(file.name);
      const content = files.get(file.key)!.content;
      if (content === 'hang') return new Promise<Buffer>(() => {});
      if (content === 'fifo') throw new FeedFileError(file.key, 'not-a-file', 'a FIFO');
      return Buffer.from(JSON.stringify({ content, validTimeMs: file.timeMs }));
    },
  };
  return { feed, reads };
}

async function convert(input: MrmsFrameInput): Promise<Buffer> {
  const { content, validTimeMs } = JSON.parse(Buffer.from(input.bytes).toString()) as {
    content: Content;
    validTimeMs: number;
  };
  if (content === 'corrupt') throw new RenderJobError(`${input.name}: cut short`, 'Grib2Error');
  return tinyFrameArchive(validTimeMs, 1);
}

function start(options: Partial<MrmsFollowerOptions> & Pick<MrmsFollowerOptions, 'feed' | 'sink'>) {
  const failures: MrmsFailureReason[] = [];
  const follower = createMrmsFollower({
    convert,
    concurrency: 1,
    logger: createSilentLogger(),
    backfill: 5,
    pollMs: 10,
    retry: { attempts: 1, baseMs: 1, maxMs: 5 },
    events: { onFailure: (r) => void failures.push(r) },
    ...options,
  });
  return { follower, failures };
}

it('tries a refused file again once its version changes (it was still being written)', async () => {
  const files = new Map([
    [fileAt(2).key, { file: fileAt(2, '100:1'), content: 'corrupt' as Content }],
  ]);
  const { feed } = feedOf(files);
  const { sink, archives } = memorySink();
  const { follower, failures } = start({ feed, sink });
  await follower.start();
  await waitFor(async () => failures.includes('bad-file'), 5000, 'the half file refused');
  files.set(fileAt(2).key, { file: fileAt(2, '200:2'), content: 'good' });
  await waitFor(async () => archives.has('202304061202'), 5000, 'the whole file published');
  await follower.stop();
  expect(failures).toEqual(['bad-file']);
});

it("counts a feed's refusal of a special file as a bad file", async () => {
  const files = new Map([[fileAt(2).key, { file: fileAt(2), content: 'fifo' as Content }]]);
  const { feed } = feedOf(files);
  const { sink } = memorySink();
  const { follower, failures } = start({ feed, sink });
  await follower.start();
  await follower.stop();
  expect(failures).toEqual(['bad-file']);
});

it('stops at once while a read never returns', async () => {
  const files = new Map([[fileAt(2).key, { file: fileAt(2), content: 'hang' as Content }]]);
  const { feed, reads } = feedOf(files);
  const { sink } = memorySink();
  const { follower } = start({ feed, sink });
  const started = follower.start();
  await waitFor(async () => reads.length > 0, 5000, 'the read begun');
  await follower.stop();
  await started;
});

describe('a file that killed its conversions', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-verdicts-'));
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it('is refused by the next follower after two, which publishes the files after it', async () => {
    const store = path.join(dir, '.mrms-verdicts.json');
    const killer = fileAt(4, '1:1');
    const next = fileAt(2, '1:1');
    const files = new Map([
      [killer.key, { file: killer, content: 'good' as Content }],
      [next.key, { file: next, content: 'good' as Content }],
    ]);
    const { feed } = feedOf(files);
    const { sink, archives } = memorySink();
    // Two producers die converting it: their conversions begin and never end.
    for (let run = 1; run <= 2; run++) {
      let begun!: () => void;
      const converting = new Promise<void>((resolve) => (begun = resolve));
      const dying = start({
        feed,
        sink,
        verdicts: createFileVerdicts(store),
        convert: () => (begun(), new Promise<Buffer>(() => {})),
      });
      void dying.follower.start();
      await converting;
      await waitFor(
        async () =>
          (await fs.readFile(store, 'utf8').catch(() => '')).includes(`"attempts":${run}`),
        5000,
        `conversion ${run} recorded`,
      );
    }
    const third = start({ feed, sink, verdicts: createFileVerdicts(store) });
    await third.follower.start();
    await third.follower.stop();
    expect(third.failures).toEqual(['bad-file']);
    expect([...archives.keys()]).toEqual(['202304061202']);
    const kept = JSON.parse(await fs.readFile(store, 'utf8')) as Record<
      string,
      { refused?: string }
    >;
    expect(kept[killer.key]?.refused).toMatch(/2 conversions of it never ended/);
    expect(kept[next.key]).toBeUndefined();
  });
});
