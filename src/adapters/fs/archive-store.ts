/**
 * Embedded archive storage: `{dir}/{YYYYMMDDHHmm}.pmtiles` on the local file system. Ranges
 * are read with positioned reads, never by loading a whole file; the file is opened and
 * checked against its published metadata before the response starts, so a vanished file is an
 * `ArchiveNotFoundError` (404) and a replaced one an `ArchiveObjectError` (503 until ingest has re-validated it) rather
 * than a broken stream.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform, pipeline, type Readable } from 'node:stream';
import type { ArchiveSource, ArchiveStore, StoredObject } from '../../domain/ports';
import { archiveFileName } from '../../domain/timestamps';
import {
  ArchiveNotFoundError,
  ClientGoneError,
  StoreUnavailableError,
} from '../../domain/archive-errors';
import { createArchiveIdentity, fileEtag } from './archive-identity';
import { isMissingFile as isMissing, translateFsError } from './read-errors';

/** Raised when a file delivers fewer bytes than the window promised (truncated meanwhile). */
export class ShortReadError extends Error {
  constructor(delivered: number, expected: number) {
    super(`file ended after ${delivered} of ${expected} bytes`);
    this.name = 'ShortReadError';
  }
}

/**
 * Passes exactly `length` bytes through or fails: the response has promised a Content-Length,
 * so a file that ends early must cut the connection, never leave the client waiting.
 */
function exactly(source: Readable, length: number): Readable {
  let delivered = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      delivered += chunk.length;
      callback(null, chunk);
    },
    flush(callback) {
      callback(delivered === length ? null : new ShortReadError(delivered, length));
    },
  });
  // An abort is the client leaving; it is not an error worth reporting.
  pipeline(source, counter, () => {});
  return counter;
}

/** Reads archive byte ranges from `dir`. */
export function createFsArchiveStore(dir: string): ArchiveStore {
  const identity = createArchiveIdentity();
  return {
    async openRange(meta, window, signal) {
      if (signal.aborted) throw new ClientGoneError();
      const file = path.join(dir, archiveFileName(meta.timestamp));
      let handle: fs.FileHandle;
      try {
        handle = await fs.open(file, 'r');
      } catch (err) {
        throw isMissing(err)
          ? new ArchiveNotFoundError(file, { cause: err })
          : new StoreUnavailableError((err as Error).message, { cause: err });
      }
      try {
        await identity.verify(meta, file, await handle.stat());
      } catch (err) {
        await handle.close().catch(() => {});
        throw err; // ArchiveObjectError: 503 with Retry-After until ingest re-validated it
      }
      const stream: Readable = handle.createReadStream({
        start: window.offset,
        end: window.offset + window.length - 1,
        autoClose: true,
        signal,
      });
      return exactly(stream, window.length);
    },
    async probe() {
      await fs.access(dir);
    },
    async close() {},
  };
}

/**
 * Ingest view of `dir`. Regular files and symbolic links to them are listed. ETags are
 * computed once per (name, size, mtime, inode) and cached, so a periodic listing does not
 * re-hash unchanged archives while a file replaced under the same name is always re-hashed.
 * A file that cannot be examined (a link loop, an unreadable file, an I/O error) is listed
 * with an empty ETag and no size rather than failing the listing: ingest then reads it,
 * fails, and counts and retries that one object while the others proceed.
 */
export function createFsArchiveSource(dir: string): ArchiveSource {
  const etags = new Map<string, { size: number; mtimeMs: number; ino: number; etag: string }>();
  /** `length` bytes at `offset` (fewer when the file ends first). */
  const readAt = async (name: string, offset: number, length: number): Promise<Buffer> => {
    const handle = await fs.open(path.join(dir, name), 'r').catch((err: unknown) => {
      throw translateFsError(name, err);
    });
    try {
      const buffer = Buffer.alloc(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle
          .read(buffer, filled, length - filled, offset + filled)
          .catch((err: unknown) => {
            throw translateFsError(name, err);
          });
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  };
  return {
    async list() {
      const entries = await fs.readdir(dir, { withFileTypes: true });
      const objects: StoredObject[] = [];
      const seen = new Set<string>();
      for (const entry of entries) {
        if (!(entry.isFile() || entry.isSymbolicLink())) continue;
        if (!entry.name.endsWith('.pmtiles') || entry.name.startsWith('.')) continue;
        const file = path.join(dir, entry.name);
        try {
          const stat = await fs.stat(file);
          if (!stat.isFile()) continue;
          let cached = etags.get(entry.name);
          if (
            !cached ||
            cached.size !== stat.size ||
            cached.mtimeMs !== stat.mtimeMs ||
            cached.ino !== stat.ino
          ) {
            const etag = await fileEtag(file);
            cached = { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, etag };
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
          if (isMissing(err)) continue; // removed between readdir and stat, or a dangling link
          objects.push({ name: entry.name, size: -1, etag: '', lastModified: new Date(0) });
        }
      }
      for (const name of etags.keys()) if (!seen.has(name)) etags.delete(name);
      return objects;
    },
    readHead: (name, length) => readAt(name, 0, length),
    readRange: (name, offset, length) => readAt(name, offset, length),
    async remove(name) {
      await fs.rm(path.join(dir, name), { force: true }).catch((err: unknown) => {
        throw translateFsError(name, err);
      });
    },
  };
}
