/**
 * The hot archive cache over a real file store: exact bytes for any window, single-flight
 * loads, the byte bound, streaming for large windows, and warm-up of header and leaves.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  BLOCK_BYTES,
  createCachingArchiveStore,
  MAX_CACHED_WINDOW,
} from '../../../src/serving/block-cache';
import { createFsArchiveStore } from '../../../src/adapters/fs/archive-store';
import { createMemoryCatalog } from '../../../src/adapters/memory/catalog';
import { createArchiveWarmer } from '../../../src/serving/archive-warmer';
import type { ArchiveBody, ArchiveMeta, ArchiveStore, ByteWindow } from '../../../src/domain/ports';
import { decodeHeader } from '../../../src/pmtiles/header';
import { createSilentLogger } from '../../../src/logger';
import { archiveOf, pyramid } from '../../fixtures/archives';

const TS = '202611221400';
// Large enough for leaf directories and many blocks.
const archive = archiveOf(pyramid(7, 200), 7, {});
const meta: ArchiveMeta = {
  timestamp: TS,
  size: archive.length,
  etag: '"e"',
  // The file's mtime is set to this: the store serves a file only under its own metadata.
  lastModified: new Date(Date.UTC(2026, 10, 22, 14, 0, 7)),
};
let dir: string;
let inner: ArchiveStore;
let loads: ByteWindow[];

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cache-'));
  await fs.writeFile(path.join(dir, `${TS}.pmtiles`), archive);
  await fs.utimes(path.join(dir, `${TS}.pmtiles`), meta.lastModified, meta.lastModified);
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));
beforeEach(() => {
  loads = [];
  const fsStore = createFsArchiveStore(dir);
  inner = {
    ...fsStore,
    openRange: (m, window, signal) => {
      loads.push(window);
      return fsStore.openRange(m, window, signal);
    },
  };
});

async function bytesOf(body: ArchiveBody): Promise<Buffer> {
  if (Buffer.isBuffer(body)) return body;
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
const signal = () => new AbortController().signal;

it('returns exact bytes for windows inside, across and at the end of blocks', async () => {
  const counts = { hits: 0, misses: 0 };
  const cache = createCachingArchiveStore(inner, 64 * 1024 * 1024, {
    onHit: () => counts.hits++,
    onMiss: () => counts.misses++,
  });
  const windows: ByteWindow[] = [
    { offset: 0, length: 16384 },
    { offset: 0, length: 1 },
    { offset: BLOCK_BYTES - 10, length: 20 },
    { offset: 3 * BLOCK_BYTES - 5, length: 2 * BLOCK_BYTES + 10 },
    { offset: archive.length - 7, length: 7 },
  ];
  for (const w of windows) {
    const body = await cache.openRange(meta, w, signal());
    expect(Buffer.isBuffer(body)).toBe(true);
    expect((body as Buffer).equals(archive.subarray(w.offset, w.offset + w.length))).toBe(true);
  }
  expect(counts.misses).toBe(new Set(loads.map((l) => l.offset)).size);
  expect(counts.hits).toBeGreaterThan(0);
  for (const load of loads) {
    expect(load.offset % BLOCK_BYTES).toBe(0);
    expect(load.length).toBe(Math.min(BLOCK_BYTES, archive.length - load.offset));
  }
});

it('loads a block once for concurrent readers (single flight)', async () => {
  const cache = createCachingArchiveStore(inner, 64 * 1024 * 1024);
  const bodies = await Promise.all(
    Array.from({ length: 50 }, () => cache.openRange(meta, { offset: 100, length: 500 }, signal())),
  );
  expect(loads).toHaveLength(1);
  for (const b of bodies) expect((b as Buffer).equals(archive.subarray(100, 600))).toBe(true);
});

it('stays within its byte bound by evicting least recently used blocks', async () => {
  let evicted = 0;
  const cache = createCachingArchiveStore(inner, 3 * BLOCK_BYTES, { onEvict: () => evicted++ });
  for (let i = 0; i < 8; i++)
    await cache.openRange(meta, { offset: i * BLOCK_BYTES, length: 10 }, signal());
  expect(cache.size()).toBeLessThanOrEqual(3 * BLOCK_BYTES);
  expect(evicted).toBe(5);
  await cache.openRange(meta, { offset: 7 * BLOCK_BYTES, length: 10 }, signal());
  expect(loads).toHaveLength(8); // the most recent block is still there
});

it('streams large windows from the store without caching them', async () => {
  const cache = createCachingArchiveStore(inner, 64 * 1024 * 1024);
  const body = await cache.openRange(meta, { offset: 0, length: archive.length }, signal());
  expect(archive.length).toBeGreaterThan(MAX_CACHED_WINDOW);
  expect(body).toBeInstanceOf(Readable);
  expect((await bytesOf(body)).equals(archive)).toBe(true);
  expect(cache.size()).toBe(0);
});

it('is a pass-through when disabled', async () => {
  const cache = createCachingArchiveStore(inner, 0);
  const body = await cache.openRange(meta, { offset: 5, length: 5 }, signal());
  expect((await bytesOf(body)).equals(archive.subarray(5, 10))).toBe(true);
  expect(cache.size()).toBe(0);
});

it('warms header, root and leaf directories of newly published archives', async () => {
  const cache = createCachingArchiveStore(inner, 64 * 1024 * 1024);
  const catalog = createMemoryCatalog();
  const warmer = createArchiveWarmer({ catalog, cache, logger: createSilentLogger() });
  warmer.start();
  await catalog.publish(meta);
  await warmer.idle();
  const header = decodeHeader(archive);
  expect(header.leafDirectoryLength).toBeGreaterThan(0);
  const before = loads.length;
  await cache.openRange(meta, { offset: 0, length: 16384 }, signal());
  await cache.openRange(
    meta,
    { offset: header.leafDirectoryOffset, length: Math.min(header.leafDirectoryLength, 4096) },
    signal(),
  );
  expect(loads.length).toBe(before); // both answered from memory
  warmer.stop();
});

it('answers a window from memory without I/O only once all its blocks are loaded', async () => {
  let hits = 0;
  const cache = createCachingArchiveStore(inner, 64 * 1024 * 1024, { onHit: () => hits++ });
  // 16 KiB across the first block boundary: the bytes of two blocks, exactly the window.
  const window = { offset: BLOCK_BYTES - 5000, length: 16 * 1024 };
  expect(cache.readCached!(meta, window)).toBeUndefined();
  expect(loads).toEqual([]);
  const opened = await bytesOf(await cache.openRange(meta, window, signal()));
  const cached = cache.readCached!(meta, window);
  const expected = archive.subarray(window.offset, window.offset + window.length);
  expect(opened.equals(expected)).toBe(true);
  expect(cached?.equals(expected)).toBe(true);
  expect(cached?.length).toBe(window.length);
  expect(loads).toHaveLength(2);
  expect(hits).toBe(2); // one per block of the synchronous read
  // Larger than the cached maximum: never from memory.
  expect(cache.readCached!(meta, { offset: 0, length: MAX_CACHED_WINDOW + 1 })).toBeUndefined();
});
