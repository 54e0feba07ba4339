/**
 * The directory feed on real files: a file modified within the settle period is not listed
 * until it has been quiet for it, then carries its size and mtime as its version (which change
 * when the file does); a tree past the walk's entry cap fails the listing instead of growing
 * without end; sub-directories deeper than the cap are not entered
 * (src/sources/mrms/directory-file-feed.ts, src/adapters/fs/feed-walk.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDirectoryFileFeed } from '../../src/sources/mrms/directory-file-feed';
import { mrmsFileName, PRODUCT_LEVEL, SAMPLE_TIME_MS } from '../fixtures/mrms-frames';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-dir-feed-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

it('lists a file only once it has settled, with a version that follows its changes', async () => {
  const name = mrmsFileName(SAMPLE_TIME_MS);
  await fs.writeFile(path.join(root, name), 'part');
  const written = (await fs.stat(path.join(root, name))).mtimeMs;
  let now = written + 500;
  const feed = createDirectoryFileFeed({
    dir: root,
    productLevel: PRODUCT_LEVEL,
    settleMs: 2000,
    now: () => now,
  });
  expect(await feed.newest(5)).toEqual([]);
  now = written + 2500;
  const [first] = await feed.newest(5);
  expect(first?.name).toBe(name);
  expect(first?.version).toMatch(/^4:/);
  await fs.appendFile(path.join(root, name), ' and the rest');
  now = Date.now() + 5000;
  const [second] = await feed.newest(5);
  expect(second?.version).toMatch(/^17:/);
  expect(second?.version).not.toBe(first?.version);
});

it('fails a listing past the entry cap, and does not enter directories past the depth cap', async () => {
  for (let i = 0; i < 6; i++) await fs.writeFile(path.join(root, `other-${i}`), '');
  const capped = createDirectoryFileFeed({
    dir: root,
    productLevel: PRODUCT_LEVEL,
    walk: { maxEntries: 5 },
    settleMs: 0,
  });
  await expect(capped.newest(5)).rejects.toThrow(/holds more than 5 entries/);

  const deep = path.join(root, 'a', 'b');
  await fs.mkdir(deep, { recursive: true });
  await fs.writeFile(path.join(deep, mrmsFileName(SAMPLE_TIME_MS)), 'x');
  const shallow = createDirectoryFileFeed({
    dir: root,
    productLevel: PRODUCT_LEVEL,
    walk: { maxDepth: 1 },
    settleMs: 0,
  });
  expect(await shallow.newest(5)).toEqual([]);
  const deeper = createDirectoryFileFeed({
    dir: root,
    productLevel: PRODUCT_LEVEL,
    walk: { maxDepth: 2 },
    settleMs: 0,
  });
  expect((await deeper.newest(5)).map((f) => f.key)).toEqual([
    path.join(deep, mrmsFileName(SAMPLE_TIME_MS)),
  ]);
});
