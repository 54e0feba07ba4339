/**
 * Warms the block cache when archives are published: every map client reads the 16 KiB
 * header window (header + root directory) and then leaf directories first, so those bytes are
 * loaded before the first client asks. Only the newest `frames` archives are warmed (what
 * clients animate), and leaf directories up to `maxLeafBytes` each.
 */
import type { CachingArchiveStore } from './block-cache';
import type { CatalogReader } from '../domain/ports';
import type { Logger } from '../logger';
import { decodeHeader, ROOT_WINDOW_BYTES } from '../pmtiles/header';

export interface ArchiveWarmer {
  start(): void;
  stop(): void;
  /** Resolves when warming triggered so far has finished (tests). */
  idle(): Promise<void>;
}

export function createArchiveWarmer(options: {
  readonly catalog: CatalogReader;
  readonly cache: CachingArchiveStore;
  readonly logger: Logger;
  readonly frames?: number;
  readonly maxLeafBytes?: number;
}): ArchiveWarmer {
  const { catalog, cache, logger } = options;
  const frames = options.frames ?? 10;
  const maxLeafBytes = options.maxLeafBytes ?? 1024 * 1024;
  const warmed = new Set<string>();
  let pending: Promise<void> = Promise.resolve();
  let unsubscribe: (() => void) | undefined;

  const warmOne = async (timestamp: string) => {
    const meta = catalog.current().get(timestamp);
    if (!meta) return;
    const headWindow = { offset: 0, length: Math.min(ROOT_WINDOW_BYTES, meta.size) };
    // Reading the head through the cache loads (and keeps) its blocks.
    const head = await cache.openRange(meta, headWindow, new AbortController().signal);
    if (!Buffer.isBuffer(head)) return; // cache disabled: nothing to warm
    const header = decodeHeader(head);
    const leafLength = Math.min(header.leafDirectoryLength, maxLeafBytes);
    if (leafLength > 0 && header.leafDirectoryOffset + leafLength <= meta.size) {
      await cache.warm(meta, [{ offset: header.leafDirectoryOffset, length: leafLength }]);
    }
  };

  const onChange = () => {
    const newest = catalog
      .current()
      .timestamps.slice(0, frames)
      .filter((t) => !warmed.has(t));
    for (const timestamp of newest) warmed.add(timestamp);
    if (warmed.size > 4 * frames) {
      const keep = new Set(catalog.current().timestamps.slice(0, frames));
      for (const t of warmed) if (!keep.has(t)) warmed.delete(t);
    }
    pending = pending.then(async () => {
      for (const timestamp of newest) {
        await warmOne(timestamp).catch((err: unknown) =>
          logger.debug(
            { timestamp, err: (err as Error).message },
            'cache warm-up failed; served cold',
          ),
        );
      }
    });
  };

  return {
    start() {
      unsubscribe = catalog.subscribe(onChange);
      onChange();
    },
    stop() {
      unsubscribe?.();
    },
    idle: () => pending,
  };
}
