/**
 * Change detection for data-directory archives. The catalog's metadata (size, last-modified,
 * ETag = MD5 of the content) was taken when ingest validated the file; a file replaced since
 * (by a copy, a rename over it, a truncation) must never be served under that metadata, or the
 * response promises the old Content-Length and delivers other (or fewer) bytes. Size and mtime
 * are compared on every open; the inode too, once known for that metadata, and an inode change
 * with equal size and mtime is settled by hashing the file once.
 */
import { createHash } from 'node:crypto';
import { createReadStream, type Stats } from 'node:fs';
import { ArchiveObjectError } from '../../domain/archive-errors';
import type { ArchiveMeta } from '../../domain/ports';

/** The file behind a published timestamp is not the one its metadata describes. */
function changed(reason: 'size' | 'etag', timestamp: string, detail: string): ArchiveObjectError {
  return new ArchiveObjectError(reason, `archive ${timestamp} changed on disk (${detail})`);
}

/** MD5 of a file as a quoted hex string: the ETag an S3 store gives a single-part upload. */
export async function fileEtag(file: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `"${hash.digest('hex')}"`;
}

export interface ArchiveIdentity {
  /**
   * Resolves when the opened file (`stat` of the open handle, `file` its path) is the one
   * `meta` describes; rejects with `ArchiveObjectError` (`size`, or `etag` for another
   * version of the same size) otherwise.
   */
  verify(meta: ArchiveMeta, file: string, stat: Stats): Promise<void>;
}

/** Remembers, per published version, which inode carries it (bounded by the catalog size). */
export function createArchiveIdentity(): ArchiveIdentity {
  const inodes = new Map<string, { version: string; ino: number; dev: number }>();
  const hashing = new Map<string, Promise<string>>();

  return {
    async verify(meta, file, stat) {
      if (stat.size !== meta.size)
        throw changed('size', meta.timestamp, `size ${stat.size}, published ${meta.size}`);
      if (stat.mtime.getTime() !== meta.lastModified.getTime())
        throw changed('etag', meta.timestamp, 'modification time');
      const version = `${meta.size}:${meta.etag}:${meta.lastModified.getTime()}`;
      const known = inodes.get(meta.timestamp);
      if (known && known.version === version && known.ino === stat.ino && known.dev === stat.dev)
        return;
      if (known && known.version === version) {
        // Same size and mtime on another inode: a copy that kept the mtime. Hash it once.
        const key = `${meta.timestamp}:${stat.dev}:${stat.ino}`;
        let pending = hashing.get(key);
        if (!pending) {
          pending = fileEtag(file).finally(() => hashing.delete(key));
          hashing.set(key, pending);
        }
        if ((await pending) !== meta.etag) throw changed('etag', meta.timestamp, 'content');
      }
      inodes.set(meta.timestamp, { version, ino: stat.ino, dev: stat.dev });
      if (inodes.size > 100_000) inodes.delete(inodes.keys().next().value as string);
    },
  };
}
