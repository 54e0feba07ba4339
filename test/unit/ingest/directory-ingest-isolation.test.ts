/**
 * Ingest over a real directory when objects misbehave one by one (docs/data-isolation.md):
 * an unreadable object is counted, retried with backoff and never stops the others or
 * retention; a replaced file is re-validated (republished or withdrawn); the memory of
 * rejected and failing objects stays bounded by what the directory holds.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFsArchiveSource } from '../../../src/adapters/fs/archive-store';
import {
  ArchiveNotFoundError,
  ArchiveReadError,
  StoreUnavailableError,
} from '../../../src/domain/archive-errors';
import { createMemoryCatalog } from '../../../src/adapters/memory/catalog';
import type { ArchiveSource } from '../../../src/domain/ports';
import { formatTimestamp } from '../../../src/domain/timestamps';
import { createIngestCycle } from '../../../src/ingest/ingest-cycle';
import { BACKOFF_BASE_MS } from '../../../src/ingest/object-backoff';
import { classifyReadFailure } from '../../../src/ingest/read-failure';
import { createSilentLogger } from '../../../src/logger';
import { buildArchive } from '../../fixtures/archives';

const START = Date.UTC(2026, 10, 22, 14, 0);
let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ingest-iso-'));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const ts = (minutesAgo: number) => formatTimestamp(START - minutesAgo * 60_000);
const file = (name: string) => path.join(dir, name);
const write = (name: string, bytes: Buffer) => fs.writeFile(file(name), bytes);

function setup(options: { retentionS?: number; source?: ArchiveSource } = {}) {
  const clock = { now: START };
  const catalog = createMemoryCatalog();
  const events = {
    rejected: [] as Array<[string, string]>,
    failed: [] as Array<[string, string]>,
    unpublished: [] as Array<[string, string]>,
    republished: [] as string[],
  };
  const cycle = createIngestCycle({
    source: options.source ?? createFsArchiveSource(dir),
    catalog,
    logger: createSilentLogger(),
    retentionS: options.retentionS ?? 3600,
    now: () => clock.now,
    onRejected: (name, reason) => events.rejected.push([name, reason]),
    onReadFailed: (name, reason) => events.failed.push([name, reason]),
    onUnpublished: (timestamp, reason) => events.unpublished.push([timestamp, reason]),
    onRepublished: (timestamp) => events.republished.push(timestamp),
  });
  return { clock, catalog, cycle, events };
}

it('an unreadable object (link loop) is counted and retried with backoff; others publish and retention runs', async () => {
  const { clock, catalog, cycle, events } = setup();
  // Published earlier, now past retention: the pass must still prune it.
  await catalog.publish({
    timestamp: ts(120),
    size: 1000,
    etag: '"old"',
    lastModified: new Date(START - 7_200_000),
  });
  await fs.symlink(`${ts(2)}.pmtiles`, file(`${ts(2)}.pmtiles`)); // ELOOP, newest, read first
  await write(`${ts(4)}.pmtiles`, buildArchive(ts(4), 1));

  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(4)]);
  expect(events.failed).toEqual([[`${ts(2)}.pmtiles`, 'io-error']]);

  await cycle.run(); // within the backoff: not read again
  expect(events.failed).toHaveLength(1);
  clock.now += BACKOFF_BASE_MS;
  await cycle.run();
  expect(events.failed).toHaveLength(2);
  clock.now += BACKOFF_BASE_MS; // the second delay is twice as long
  await cycle.run();
  expect(events.failed).toHaveLength(2);
  expect(cycle.tracked().failing).toBe(1);

  await fs.rm(file(`${ts(2)}.pmtiles`));
  await write(`${ts(2)}.pmtiles`, buildArchive(ts(2), 1));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(2), ts(4)]);
  expect(cycle.tracked().failing).toBe(0);
});

// The adapters' code tables are tested at their boundary (test/unit/adapters/{fs,s3}/);
// ingest reads only the core's error types.
it.each([
  [new ArchiveReadError('access-denied', 'EACCES'), 'access-denied'],
  [new ArchiveReadError('archived', 'InvalidObjectState'), 'archived'],
  [new ArchiveReadError('encrypted', 'SSE-C'), 'encrypted'],
  [new ArchiveReadError('io-error', 'EIO'), 'io-error'],
  [new ArchiveNotFoundError('202406011200.pmtiles'), 'not-found'],
  [new StoreUnavailableError('circuit breaker open'), 'store'],
  [Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), 'bad-response'],
])('classifies %s as %s', (err, reason) => {
  expect(classifyReadFailure(err)).toBe(reason);
});

it('a missing file is the same ArchiveNotFoundError an S3 NoSuchKey becomes (not-found)', async () => {
  // The S3 half: test/stack/s3-archive-source.test.ts, against s3rver.
  const missing = await createFsArchiveSource(dir)
    .readHead(`${ts(3)}.pmtiles`, 16384)
    .catch((err: unknown) => err);
  expect(missing).toBeInstanceOf(ArchiveNotFoundError);
  expect(classifyReadFailure(missing)).toBe('not-found');
});

it('a per-object read error of any kind is isolated; a store failure ends the reads but not retention', async () => {
  const fsSource = createFsArchiveSource(dir);
  let failure: Error = new ArchiveReadError('access-denied', 'Access Denied.');
  const source: ArchiveSource = {
    ...fsSource,
    readHead: (name, length) =>
      name === `${ts(2)}.pmtiles` ? Promise.reject(failure) : fsSource.readHead(name, length),
  };
  const { clock, catalog, cycle, events } = setup({ source });
  await catalog.publish({
    timestamp: ts(120),
    size: 1000,
    etag: '"old"',
    lastModified: new Date(START - 7_200_000),
  });
  for (const m of [2, 4]) await write(`${ts(m)}.pmtiles`, buildArchive(ts(m), 1));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(4)]);
  expect(events.failed).toEqual([[`${ts(2)}.pmtiles`, 'access-denied']]);

  // The store itself failing: the pass fails (retried at the next trigger), retention still ran.
  failure = new StoreUnavailableError('connect ECONNREFUSED');
  await write(`${ts(6)}.pmtiles`, buildArchive(ts(6), 1));
  await catalog.publish({
    timestamp: ts(100),
    size: 1000,
    etag: '"old"',
    lastModified: new Date(START - 6_000_000),
  });
  clock.now += BACKOFF_BASE_MS;
  await expect(cycle.run()).rejects.toThrow('ECONNREFUSED');
  expect(catalog.current().timestamps).toEqual([ts(4)]);
  expect(cycle.tracked().failing).toBe(1);
});

it('a replaced file is re-validated: republished with its new metadata, or withdrawn', async () => {
  const { catalog, cycle, events } = setup();
  const name = `${ts(2)}.pmtiles`;
  await write(name, buildArchive(ts(2), 3));
  await cycle.run();
  const first = catalog.current().get(ts(2))!;

  const smaller = buildArchive(ts(2), 1);
  await write(name, smaller);
  await cycle.run();
  const second = catalog.current().get(ts(2))!;
  expect(second.size).toBe(smaller.length);
  expect(second.etag).not.toBe(first.etag);
  expect(events.republished).toEqual([ts(2)]);

  const garbage = Buffer.alloc(20_000, 7);
  await write(name, garbage);
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([]);
  expect(events.unpublished).toEqual([[ts(2), 'replaced-invalid']]);
  expect(events.rejected).toEqual([[name, 'bad-magic']]);
});

it('a same-size file renamed over with the old mtime (new inode) is re-hashed and republished', async () => {
  const { catalog, cycle, events } = setup();
  const name = `${ts(2)}.pmtiles`;
  const original = buildArchive(ts(2), 2);
  await write(name, original);
  const mtime = new Date(START - 60_000);
  await fs.utimes(file(name), mtime, mtime);
  await cycle.run();
  const before = catalog.current().get(ts(2))!;

  const altered = Buffer.from(original);
  altered[altered.length - 1] = original[original.length - 1]! ^ 0xff; // last tile byte: still a valid archive
  await write(`.${name}.tmp`, altered);
  await fs.utimes(file(`.${name}.tmp`), mtime, mtime);
  await fs.rename(file(`.${name}.tmp`), file(name));
  await cycle.run();
  const after = catalog.current().get(ts(2))!;
  expect(after.size).toBe(before.size);
  expect(after.lastModified.getTime()).toBe(before.lastModified.getTime());
  expect(after.etag).not.toBe(before.etag);
  expect(events.republished).toEqual([ts(2)]);
});

it('a published file that disappears is withdrawn, unless the whole listing is empty', async () => {
  const { catalog, cycle, events } = setup();
  for (const m of [2, 4]) await write(`${ts(m)}.pmtiles`, buildArchive(ts(m), 1));
  await cycle.run();
  await fs.rm(file(`${ts(2)}.pmtiles`));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(4)]);
  expect(events.unpublished).toEqual([[ts(2), 'object-missing']]);
  // An empty directory looks more like a fault (wrong mount) than news: keep what is listed.
  await fs.rm(file(`${ts(4)}.pmtiles`));
  await cycle.run();
  expect(catalog.current().timestamps).toEqual([ts(4)]);
});

it('forgets rejected objects that disappeared or left retention (bounded memory)', async () => {
  const { clock, cycle, events } = setup({ retentionS: 3600 });
  for (let i = 0; i < 30; i++) await write(`radar-${i}.pmtiles`, buildArchive(ts(2), 1));
  const corrupt = Buffer.from(buildArchive(ts(10), 1));
  corrupt.write('NOTPMTI', 0, 'latin1');
  await write(`${ts(10)}.pmtiles`, corrupt);
  await cycle.run();
  await cycle.run();
  expect(events.rejected).toHaveLength(31); // each once
  expect(cycle.tracked().rejected).toBe(31);

  for (let i = 0; i < 30; i++) await fs.rm(file(`radar-${i}.pmtiles`));
  await cycle.run();
  expect(cycle.tracked().rejected).toBe(1);
  clock.now += 3600_000; // the corrupt one's timestamp leaves retention
  await cycle.run();
  expect(cycle.tracked().rejected).toBe(0);
  expect(events.rejected).toHaveLength(31);
});
