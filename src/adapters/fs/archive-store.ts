/**
 * Embedded archive storage: `{dir}/{YYYYMMDDHHmm}.pmtiles` on the local file system. Ranges
 * are read with positioned reads, never by loading a whole file; the file is opened before
 * the response starts, so a vanished file is a 404 rather than a broken stream.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { ArchiveSource, ArchiveStore, StoredObject } from '../../domain/ports';
import { archiveFileName } from '../../domain/timestamps';
import { ClientGoneError } from '../../domain/archive-errors';
import { NotFoundError, ServiceUnavailableError } from '../../errors';

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/** Reads archive byte ranges from `dir`. */
export function createFsArchiveStore(dir: string): ArchiveStore {
  return {
    async openRange(meta, window, signal) {
      if (signal.aborted) throw new ClientGoneError();
      let handle: fs.FileHandle;
      try {
        handle = await fs.open(path.join(dir, archiveFileName(meta.timestamp)), 'r');
      } catch (err) {
        throw isMissing(err)
          ? new NotFoundError({ cause: err })
          : new ServiceUnavailableError({ cause: err });
      }
      const stream: Readable = handle.createReadStream({
        start: window.offset,
        end: window.offset + window.length - 1,
        autoClose: true,
        signal,
      });
      // An abort is the client leaving; it is not an error worth reporting.
      stream.on('error', () => {});
      return stream;
    },
    async probe() {
      await fs.access(dir);
    },
    async close() {},
  };
}

/** MD5 of a file as a quoted hex string: the ETag an S3 store gives a single-part upload. */
async function fileEtag(file: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `"${hash.digest('hex')}"`;
}

/**
 * Ingest view of `dir`. ETags are computed once per (name, size, mtime) and cached, so a
 * periodic listing does not re-hash unchanged archives.
 */
export function createFsArchiveSource(dir: string): ArchiveSource {
  const etags = new Map<string, { size: number; mtimeMs: number; etag: string }>();
  return {
    async list() {
      const entries = await fs.readdir(dir, { withFileTypes: true });
      const objects: StoredObject[] = [];
      const seen = new Set<string>();
      for (const entry of entries) {
        if (!entry.isFile() || !entry.name.endsWith('.pmtiles') || entry.name.startsWith('.'))
          continue;
        const file = path.join(dir, entry.name);
        try {
          const stat = await fs.stat(file);
          let cached = etags.get(entry.name);
          if (!cached || cached.size !== stat.size || cached.mtimeMs !== stat.mtimeMs) {
            cached = { size: stat.size, mtimeMs: stat.mtimeMs, etag: await fileEtag(file) };
            etags.set(entry.name, cached);
          }
          seen.add(entry.name);
          objects.push({
            name: entry.name,
            size: stat.size,
            etag: cached.etag,
            lastModified: stat.mtime,
          });
        } catch (err) {
          if (!isMissing(err)) throw err; // removed between readdir and stat: skip
        }
      }
      for (const name of etags.keys()) if (!seen.has(name)) etags.delete(name);
      return objects;
    },
    async readHead(name, length) {
      const handle = await fs.open(path.join(dir, name), 'r');
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    async remove(name) {
      await fs.rm(path.join(dir, name), { force: true });
    },
  };
}
