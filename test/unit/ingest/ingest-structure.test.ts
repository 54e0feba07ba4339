/**
 * Ingest checks more than the header before it publishes (over a real directory): an archive
 * whose root directory or metadata JSON is broken is rejected by reason and never published;
 * metadata past the first 16 KiB is read (bounded). A published archive a replica reports as
 * corrupt is re-validated with its leaf directories: unpublished when bad (and not published
 * again), kept when valid.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFsArchiveSource } from '../../../src/adapters/fs/archive-store';
import { createMemoryCatalog } from '../../../src/adapters/memory/catalog';
import { createMemoryRevalidationQueue } from '../../../src/adapters/memory/revalidation-queue';
import { StoreUnavailableError } from '../../../src/domain/archive-errors';
import type { ArchiveSource } from '../../../src/domain/ports';
import { formatTimestamp } from '../../../src/domain/timestamps';
import { createIngestCycle } from '../../../src/ingest/ingest-cycle';
import { createSilentLogger } from '../../../src/logger';
import { decodeHeader } from '../../../src/pmtiles/header';
import { archiveOf, buildArchive, pyramid } from '../../fixtures/archives';
import {
  leafArchive,
  withCorruptFirstLeaf,
  withCorruptMetadata,
  withCorruptRoot,
  withMetadataText,
} from '../../fixtures/corrupt-archives';

const START = Date.UTC(2026, 10, 22, 14, 0);
let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingest-structure-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const ts = (minutesAgo: number) => formatTimestamp(START - minutesAgo * 60_000);
const name = (timestamp: string) => `${timestamp}.pmtiles`;
const write = (timestamp: string, bytes: Buffer) =>
  fs.writeFile(path.join(dir, name(timestamp)), bytes);

function setup(source: ArchiveSource = createFsArchiveSource(dir)) {
  const catalog = createMemoryCatalog();
  const revalidation = createMemoryRevalidationQueue();
  const events = {
    rejected: [] as Array<[string, string]>,
    unpublished: [] as Array<[string, string]>,
    failed: [] as Array<[string, string]>,
  };
  const cycle = createIngestCycle({
    source,
    catalog,
    logger: createSilentLogger(),
    retentionS: 3600,
    revalidation,
    now: () => START,
    onRejected: (object, reason) => events.rejected.push([object, reason]),
    onUnpublished: (timestamp, reason) => events.unpublished.push([timestamp, reason]),
    onReadFailed: (object, reason) => events.failed.push([object, reason]),
  });
  return { catalog, cycle, events, revalidation };
}

it('rejects an archive with a broken root directory or metadata by reason; publishes the rest', async () => {
  const { catalog, cycle, events } = setup();
  await write(ts(2), buildArchive(ts(2), 3));
  await write(ts(4), withCorruptRoot(leafArchive(ts(4))));
  await write(ts(6), withCorruptMetadata(buildArchive(ts(6), 3)));
  await write(ts(8), withMetadataText(buildArchive(ts(8), 3), '["not", "an", "object"]'));
  await write(ts(10), withMetadataText(buildArchive(ts(10), 3), '{"truncated": '));

  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(2)]);
  expect(events.rejected.sort()).toEqual(
    [
      [name(ts(4)), 'bad-root-directory'],
      [name(ts(6)), 'bad-metadata'],
      [name(ts(8)), 'bad-metadata'],
      [name(ts(10)), 'bad-metadata'],
    ].sort(),
  );
  // Once per version: the next pass neither counts nor publishes them again.
  await cycle.run();
  expect(events.rejected).toHaveLength(4);
  expect(catalog.current().timestamps).toEqual([ts(2)]);
});

it('reads metadata that lies past the first 16 KiB, and refuses metadata over 1 MiB', async () => {
  // Incompressible metadata of 40 KB: its section ends far past the head ingest reads first.
  // A hash chain in base64: deterministic, and gzip finds nothing to fold in it.
  const noise = (chars: number) => {
    const parts: string[] = [];
    for (let i = 0, n = 0; n < chars; i++, n += 88)
      parts.push(createHash('sha512').update(String(i)).digest('base64'));
    return parts.join('').slice(0, chars);
  };
  const big = archiveOf(pyramid(3), 3, { name: 'big', noise: noise(40_000) });
  const h = decodeHeader(big);
  expect(h.jsonMetadataOffset + h.jsonMetadataLength).toBeGreaterThan(16384);
  const reads: Array<[string, number, number]> = [];
  const fsSource = createFsArchiveSource(dir);
  const { catalog, cycle, events } = setup({
    ...fsSource,
    readRange: (object, offset, length) => {
      reads.push([object, offset, length]);
      return fsSource.readRange(object, offset, length);
    },
  });
  await write(ts(2), big);
  const huge = archiveOf(pyramid(1), 1, { noise: noise(1_600_000) });
  expect(decodeHeader(huge).jsonMetadataLength).toBeGreaterThan(1024 * 1024);
  await write(ts(4), huge);
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(2)]);
  expect(reads).toEqual([[name(ts(2)), h.jsonMetadataOffset, h.jsonMetadataLength]]);
  expect(events.rejected).toEqual([[name(ts(4)), 'metadata-too-large']]);
});

it('publishes an archive with a corrupt leaf (not read at ingest); a report unpublishes it for good', async () => {
  const { catalog, cycle, events, revalidation } = setup();
  await write(ts(2), leafArchive(ts(2)));
  await write(ts(4), withCorruptFirstLeaf(leafArchive(ts(4))));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(2), ts(4)]);

  // Replicas report both (the valid one, say, after a read that failed for another reason).
  await revalidation.request(ts(4));
  await revalidation.request(ts(2));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(2)]);
  expect(events.unpublished).toEqual([[ts(4), 'failed-revalidation']]);
  expect(events.rejected).toEqual([[name(ts(4)), 'bad-leaf-directory']]);
  expect(await revalidation.take()).toEqual([]);

  // Later passes do not publish the bad version again; a fixed upload is published.
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(2)]);
  await write(ts(4), leafArchive(ts(4)));
  await fs.utimes(path.join(dir, name(ts(4))), new Date(START), new Date(START + 1000));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(2), ts(4)]);
  expect(events.failed).toEqual([]);
});

it('a report that a store failure interrupted is asked again for the next pass', async () => {
  const fsSource = createFsArchiveSource(dir);
  let storeDown = false;
  const { catalog, cycle, revalidation } = setup({
    ...fsSource,
    readHead: (object, length) =>
      storeDown
        ? Promise.reject(new StoreUnavailableError('connect ECONNREFUSED'))
        : fsSource.readHead(object, length),
  });
  await write(ts(2), withCorruptFirstLeaf(leafArchive(ts(2))));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(2)]);
  await revalidation.request(ts(2));
  storeDown = true;
  await expect(cycle.run()).rejects.toThrow(/unavailable/);
  expect(catalog.current().timestamps).toEqual([ts(2)]);
  storeDown = false;
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([]);
});
