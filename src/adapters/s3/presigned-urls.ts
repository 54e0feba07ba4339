/**
 * Presigned GET URLs, one per object, issued by the minio client and reused for every ranged
 * read of that object until well inside their expiry. Signing (SigV4: a canonical request, a
 * SHA-256 and five HMACs) then happens once per archive every half hour instead of once per
 * read, and each read is a plain GET with a `Range` header (unsigned, as S3 allows).
 */
import { LRUCache } from 'lru-cache';
import type { Client } from 'minio';

export interface PresignedUrls {
  /** A URL valid for at least half its lifetime from now. */
  urlFor(key: string): Promise<URL>;
  /** Drops the cached URL of `key` (after the store refused it), so the next read re-signs. */
  forget(key: string): void;
}

export interface PresignedUrlOptions {
  readonly minio: Client;
  readonly bucket: string;
  /** Lifetime of an issued URL (default 3600 s); URLs are re-issued after half of it. */
  readonly expirySeconds?: number;
  /** Objects whose URL is kept (default 4096, far above a retention window of archives). */
  readonly maxEntries?: number;
}

/** Creates the cache. Concurrent first reads of one object share one signing call. */
export function createPresignedUrls(options: PresignedUrlOptions): PresignedUrls {
  const expirySeconds = options.expirySeconds ?? 3600;
  const urls = new LRUCache<string, URL>({
    max: options.maxEntries ?? 4096,
    // Re-issued at half the lifetime, so a URL in use never nears its expiry (or clock skew).
    ttl: (expirySeconds * 1000) / 2,
    ttlAutopurge: false,
    fetchMethod: async (key) =>
      new URL(await options.minio.presignedGetObject(options.bucket, key, expirySeconds)),
  });
  return {
    async urlFor(key) {
      const url = await urls.fetch(key);
      if (url === undefined) throw new Error(`no presigned URL for ${key}`);
      return url;
    },
    forget: (key) => void urls.delete(key),
  };
}
