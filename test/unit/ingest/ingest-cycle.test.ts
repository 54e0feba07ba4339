/** Ingest over a real directory: what gets published, what never does, and retention. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFsArchiveSource } from '../../../src/adapters/fs/archive-store';
import { createMemoryCatalog } from '../../../src/adapters/memory/catalog';
import { formatTimestamp } from '../../../src/domain/timestamps';
import { createIngestCycle } from '../../../src/ingest/ingest-cycle';
import { createSilentLogger } from '../../../src/logger';
import { buildArchive } from '../../fixtures/archives';

const NOW = Date.UTC(2026, 10, 22, 14, 0);
let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingest-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

function setup(retentionS = 3600) {
  const catalog = createMemoryCatalog();
  const rejected: Array<[string, string]> = [];
  const published: string[] = [];
  const cycle = createIngestCycle({
    source: createFsArchiveSource(dir),
    catalog,
    logger: createSilentLogger(),
    retentionS,
    now: () => NOW,
    onRejected: (name, reason) => rejected.push([name, reason]),
    onPublished: (ts) => published.push(ts),
  });
  return { catalog, cycle, rejected, published };
}

const ts = (minutesAgo: number) => formatTimestamp(NOW - minutesAgo * 60_000);
const write = (name: string, bytes: Buffer) => fs.writeFile(path.join(dir, name), bytes);

it('publishes valid archives once, newest first, with size and MD5 ETag', async () => {
  const { catalog, cycle, published } = setup();
  await write(`${ts(4)}.pmtiles`, buildArchive(ts(4), 1));
  await write(`${ts(2)}.pmtiles`, buildArchive(ts(2), 1));
  await cycle.run();
  await cycle.run();
  expect(published).toEqual([ts(2), ts(4)]);
  expect(catalog.current().timestamps).toEqual([ts(2), ts(4)]);
  const meta = catalog.current().get(ts(2))!;
  expect(meta.size).toBe(buildArchive(ts(2), 1).length);
  expect(meta.etag).toMatch(/^"[0-9a-f]{32}"$/);
});

it('never publishes truncated, corrupt, wrongly named or temporary objects', async () => {
  const { catalog, cycle, rejected } = setup();
  const good = buildArchive(ts(2), 1);
  await write(`${ts(2)}.pmtiles`, good.subarray(0, good.length - 10));
  const corrupt = Buffer.from(good);
  corrupt.write('XXTiles', 0);
  await write(`${ts(4)}.pmtiles`, corrupt);
  await write('radar-latest.pmtiles', good);
  await write('202613011200.pmtiles', good);
  await write(`.${ts(6)}.pmtiles.tmp`, good);
  await write(`${ts(8)}.pmtiles.part`, good);
  await cycle.run();
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([]);
  expect(rejected.map(([name]) => name).sort()).toEqual(
    [`${ts(2)}.pmtiles`, `${ts(4)}.pmtiles`, '202613011200.pmtiles', 'radar-latest.pmtiles'].sort(),
  );
  expect(Object.fromEntries(rejected)[`${ts(4)}.pmtiles`]).toBe('bad-magic');
});

it('publishes an object once it is rewritten complete after a rejection', async () => {
  const { catalog, cycle } = setup();
  const good = buildArchive(ts(2), 1);
  await write(`${ts(2)}.pmtiles`, good.subarray(0, 200));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([]);
  await write(`${ts(2)}.pmtiles`, good);
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(2)]);
});

it('skips archives more than 5 minutes in the future until they are due', async () => {
  const { catalog, cycle } = setup();
  const future = formatTimestamp(NOW + 10 * 60_000);
  const nearFuture = formatTimestamp(NOW + 4 * 60_000);
  await write(`${future}.pmtiles`, buildArchive(future, 1));
  await write(`${nearFuture}.pmtiles`, buildArchive(nearFuture, 1));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([nearFuture]);
});

it('unpublishes past retention first and deletes files only after a grace period', async () => {
  const { catalog, cycle } = setup(3600);
  for (const m of [10, 61, 90]) await write(`${ts(m)}.pmtiles`, buildArchive(ts(m), 1));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(10)]);
  const files = (await fs.readdir(dir)).sort();
  // 61 minutes: out of the catalog but within the 10-minute delete grace; 90: deleted.
  expect(files).toEqual([`${ts(10)}.pmtiles`, `${ts(61)}.pmtiles`].sort());
});

it('the delete grace is 10 minutes after the retention cutoff, to the minute', async () => {
  const { catalog, cycle } = setup(3600);
  // Retention 60 min: 69 min old is 9 min past the cutoff (kept), 71 is 11 min past (deleted).
  for (const m of [69, 71]) await write(`${ts(m)}.pmtiles`, buildArchive(ts(m), 1));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([]);
  expect(await fs.readdir(dir)).toEqual([`${ts(69)}.pmtiles`]);
});

it('applies retention even when the listing fails', async () => {
  let now = NOW;
  const catalog = createMemoryCatalog();
  const cycle = createIngestCycle({
    source: createFsArchiveSource(dir),
    catalog,
    logger: createSilentLogger(),
    retentionS: 3600,
    now: () => now,
  });
  await write(`${ts(50)}.pmtiles`, buildArchive(ts(50), 1));
  await write(`${ts(2)}.pmtiles`, buildArchive(ts(2), 1));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(2), ts(50)]);
  // The directory (the store) is gone, and the older frame leaves retention.
  await fs.rm(dir, { recursive: true, force: true });
  now = NOW + 20 * 60_000;
  await expect(cycle.run()).rejects.toThrow(/ENOENT/);
  expect(catalog.current().timestamps).toEqual([ts(2)]);
});
