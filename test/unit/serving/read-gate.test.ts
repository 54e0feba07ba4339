/**
 * The read gate over a real data-directory store: a key and an address hold at most their share
 * of open reads, a slot is held until the stream closes, and reads without an owner (cache
 * fills) are never counted or refused.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createFsArchiveStore } from '../../../src/adapters/fs/archive-store';
import { createReadGate } from '../../../src/serving/read-gate';
import { StoreBusyError } from '../../../src/domain/archive-errors';
import type { ArchiveMeta } from '../../../src/domain/ports';

const TS = '202601151200';
let dir: string;
const meta: ArchiveMeta = { timestamp: TS, size: 4096, etag: '"x"', lastModified: new Date() };
const window = { offset: 0, length: 4096 };
const never = new AbortController().signal;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-gate-'));
  await fs.writeFile(path.join(dir, `${TS}.pmtiles`), Buffer.alloc(4096, 7));
  // The store serves a file only under its own metadata (size and mtime).
  await fs.utimes(path.join(dir, `${TS}.pmtiles`), meta.lastModified, meta.lastModified);
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

const closed = (stream: Readable) =>
  new Promise<void>((resolve) => {
    stream.once('close', () => resolve());
    stream.destroy();
  });

it('refuses a key past its share and frees the slot when a stream closes', async () => {
  const gate = createReadGate(createFsArchiveStore(dir), { perKey: 2, perAddress: 10 });
  const owner = (address: string) => ({ keyId: 'k', address });
  const a = (await gate.openRange(meta, window, never, owner('1'))) as Readable;
  const b = (await gate.openRange(meta, window, never, owner('2'))) as Readable;
  const refused = await gate.openRange(meta, window, never, owner('3')).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(StoreBusyError);
  expect((refused as StoreBusyError).reason).toBe('key');
  // Another key is not affected; reads without an owner are never counted.
  const other = (await gate.openRange(meta, window, never, {
    keyId: 'other',
    address: '3',
  })) as Readable;
  const fill = (await gate.openRange(meta, window, never)) as Readable;
  expect(gate.held()).toEqual({ keys: 3, addresses: 3 });
  await closed(a);
  const c = (await gate.openRange(meta, window, never, owner('3'))) as Readable;
  await Promise.all([b, c, other, fill].map(closed));
  expect(gate.held()).toEqual({ keys: 0, addresses: 0 });
});

it('refuses an address past its share whatever the key', async () => {
  const gate = createReadGate(createFsArchiveStore(dir), { perKey: 10, perAddress: 1 });
  const first = (await gate.openRange(meta, window, never, {
    keyId: 'a',
    address: '10.0.0.1',
  })) as Readable;
  const refused = await gate
    .openRange(meta, window, never, { keyId: 'b', address: '10.0.0.1' })
    .catch((e: unknown) => e);
  expect((refused as StoreBusyError).reason).toBe('client');
  await closed(first);
  // A failed open gives its slot back at once.
  const missing = { ...meta, timestamp: '202601151202' };
  await expect(
    gate.openRange(missing, window, never, { keyId: 'a', address: '10.0.0.1' }),
  ).rejects.toBeDefined();
  expect(gate.held()).toEqual({ keys: 0, addresses: 0 });
});
