/**
 * The embedded replica's watch of its MRMS source: not answered until one listing succeeds; a
 * notice for the terminal when the first listing fails (naming what failed) or when the source
 * stays silent past the limit (a route that drops packets), given once, then a line when it
 * answers; the simulator's watch has always answered.
 */
import type { FileFeed } from '../../../src/domain/producer-ports';
import { createSilentLogger } from '../../../src/logger';
import { ALWAYS_ANSWERED, createSourceWatch } from '../../../src/wiring/source-watch';

function feed(newest: FileFeed['newest']): FileFeed {
  return { describe: 's3://noaa-mrms-pds/CONUS/x/', newest, read: async () => Buffer.alloc(0) };
}

it('says what failed at the first failed listing, once, and when the source answers', async () => {
  const notices: string[] = [];
  const watch = createSourceWatch({ logger: createSilentLogger(), notify: (t) => notices.push(t) });
  let fail = true;
  const watched = watch.watch(
    feed(async () => {
      if (fail) throw new Error('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND x') });
      return [];
    }),
  );
  await watch.component.start();
  await expect(watched.newest(3)).rejects.toThrow('fetch failed');
  await expect(watched.newest(3)).rejects.toThrow('fetch failed');
  expect(watch.answered()).toBe(false);
  expect(notices).toHaveLength(1);
  expect(notices[0]).toContain('(fetch failed: getaddrinfo ENOTFOUND x)');
  expect(notices[0]).toContain('Source: s3://noaa-mrms-pds/CONUS/x/');
  expect(notices[0]).toMatch(/network[\s\S]*MRMS_SOURCE[\s\S]*simulator/);
  fail = false;
  await watched.newest(3);
  expect(watch.answered()).toBe(true);
  expect(notices[1]).toBe('MRMS source answered: s3://noaa-mrms-pds/CONUS/x/\n');
  await watch.component.stop();
});

it('gives the notice when the source stays silent past the limit', async () => {
  jest.useFakeTimers();
  try {
    const notices: string[] = [];
    const watch = createSourceWatch({
      logger: createSilentLogger(),
      notify: (t) => notices.push(t),
      noticeAfterMs: 10_000,
    });
    const watched = watch.watch(feed(() => new Promise(() => {})));
    await watch.component.start();
    void watched.newest(3);
    jest.advanceTimersByTime(9_999);
    expect(notices).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('(no answer in 10 s)');
    await watch.component.stop();
  } finally {
    jest.useRealTimers();
  }
});

it('gives no notice for a source that answers, nor for the simulator', async () => {
  const notices: string[] = [];
  const watch = createSourceWatch({ logger: createSilentLogger(), notify: (t) => notices.push(t) });
  await watch.component.start();
  await watch.watch(feed(async () => [])).newest(1);
  await watch.component.stop();
  expect([watch.answered(), notices]).toEqual([true, []]);
  expect(ALWAYS_ANSWERED.answered()).toBe(true);
});
