/**
 * Data-directory mode, a file replaced under a published timestamp (docs/data-isolation.md):
 * the store checks the open file against the published metadata before the response starts
 * (size, mtime, inode), so the old Content-Length is never promised over other bytes; a file
 * that shrinks while it is being sent cuts the connection instead of leaving the client
 * waiting; and ingest re-validates the file, so the new version is served with its own ETag.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFsArchiveStore, ShortReadError } from '../../src/adapters/fs/archive-store';
import type { ArchiveMeta } from '../../src/domain/ports';
import { ArchiveObjectError } from '../../src/domain/archive-errors';
import { buildArchive } from '../fixtures/archives';
import { auth, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { request, type RawResponse } from '../harness/http-client';
import { waitFor } from '../harness/wait';

jest.setTimeout(30_000);

const TS = '202611221400';

describe('the data-directory store against a replaced file', () => {
  let dir: string;
  let meta: ArchiveMeta;
  const original = buildArchive(TS, 3);
  const file = () => path.join(dir, `${TS}.pmtiles`);

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fs-store-'));
    await fs.writeFile(file(), original);
    const stat = await fs.stat(file());
    meta = { timestamp: TS, size: original.length, etag: '"e"', lastModified: stat.mtime };
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  const changed = async (opening: Promise<unknown>) => {
    const err = await opening.then(
      () => undefined,
      (e: unknown) => e,
    );
    return err instanceof ArchiveObjectError;
  };

  it('refuses a file of another size before anything is sent', async () => {
    const store = createFsArchiveStore(dir);
    await fs.writeFile(file(), buildArchive(TS, 1));
    const opened = store.openRange(meta, { offset: 0, length: 100 }, new AbortController().signal);
    expect(await changed(opened)).toBe(true);
  });

  it('refuses a same-size file renamed over it with the old mtime once the content differs', async () => {
    const store = createFsArchiveStore(dir);
    const signal = new AbortController().signal;
    const { createHash } = await import('node:crypto');
    meta = { ...meta, etag: `"${createHash('md5').update(original).digest('hex')}"` };
    // The first open learns the inode that carries this version.
    const first = (await store.openRange(
      meta,
      { offset: 0, length: 10 },
      signal,
    )) as NodeJS.ReadableStream;
    for await (const chunk of first) void chunk;
    const altered = Buffer.from(original);
    altered[altered.length - 1] = original[original.length - 1]! ^ 0xff;
    const temp = path.join(dir, 'next.tmp');
    await fs.writeFile(temp, altered);
    await fs.utimes(temp, meta.lastModified, meta.lastModified);
    await fs.rename(temp, file());
    expect(await changed(store.openRange(meta, { offset: 0, length: 10 }, signal))).toBe(true);
    // The same bytes under a new inode (a copy that kept its mtime) are served.
    await fs.writeFile(temp, original);
    await fs.utimes(temp, meta.lastModified, meta.lastModified);
    await fs.rename(temp, file());
    const again = (await store.openRange(
      meta,
      { offset: 0, length: 10 },
      signal,
    )) as NodeJS.ReadableStream;
    const chunks: Buffer[] = [];
    for await (const chunk of again) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(original.subarray(0, 10))).toBe(true);
  });

  it('fails the stream (never ends it short) when the file shrinks after it was opened', async () => {
    const store = createFsArchiveStore(dir);
    // Large enough that reading stops on backpressure long before the end.
    const large = Buffer.alloc(8 * 1024 * 1024, 3);
    await fs.writeFile(file(), large);
    const stat = await fs.stat(file());
    meta = { ...meta, size: large.length, lastModified: stat.mtime };
    const body = (await store.openRange(
      meta,
      { offset: 0, length: large.length },
      new AbortController().signal,
    )) as NodeJS.ReadableStream;
    await fs.truncate(file(), 1000);
    const read = (async () => {
      for await (const chunk of body) void chunk;
    })();
    await expect(read).rejects.toBeInstanceOf(ShortReadError);
  });
});

describe('a replaced archive over HTTP (embedded mode)', () => {
  let api: EmbeddedApi;
  beforeAll(async () => {
    api = await startEmbeddedApi();
  });
  afterAll(() => api.stop());

  const get = (range?: string): Promise<RawResponse> =>
    request(api.baseUrl, `/tiles/${TS}.pmtiles`, {
      headers: range ? { ...auth(), Range: range } : auth(),
      timeoutMs: 5000,
    });

  it('never answers the old Content-Length over new bytes, and serves the new version once re-validated', async () => {
    const first = buildArchive(TS, 3);
    await api.publish(TS, first);
    await api.waitForListed(TS);
    const before = await get();
    expect(before.body.equals(first)).toBe(true);

    const second = buildArchive(TS, 1);
    const target = path.join(api.dataDir, `${TS}.pmtiles`);
    await fs.writeFile(target, second); // in place: same inode, new size
    const seen: string[] = [];
    await waitFor(
      async () => {
        const res = await get();
        // Every answer is complete and self-consistent: never a short body, never a hang.
        expect(res.body.length).toBe(Number(res.headers['content-length']));
        seen.push(`${res.status}:${res.headers.etag ?? ''}`);
        if (res.status === 200) {
          if (res.headers.etag === before.headers.etag) expect(res.body.equals(first)).toBe(true);
          else expect(res.body.equals(second)).toBe(true);
        } else {
          // 503 while the changed file awaits re-validation; 404 while ingest has withdrawn it
          // (an in-place write is briefly a truncated, invalid archive).
          expect([503, 404]).toContain(res.status);
        }
        return res.status === 200 && res.headers.etag !== before.headers.etag;
      },
      10_000,
      'new version served',
      5,
    );
    const partial = await get('bytes=0-99');
    expect(partial.status).toBe(206);
    expect(partial.headers['content-range']).toBe(`bytes 0-99/${second.length}`);

    await fs.writeFile(target, Buffer.alloc(40_000, 1)); // not an archive any more
    await waitFor(async () => (await get()).status === 404, 10_000, 'withdrawn', 20);
    expect(api.catalogTimestamps()).not.toContain(TS);
  });
});
