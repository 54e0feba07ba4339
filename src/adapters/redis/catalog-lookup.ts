/**
 * One timestamp looked up in the shared index, for a replica whose snapshot does not hold it:
 * the snapshot lags the index by the event latency, and by much more while the event
 * subscription reconnects after an outage, yet another replica may already list the frame.
 * Bounded on every side, because a request for an unpublished timestamp reaches it too:
 *
 * - time: a lookup waits at most `timeoutMs` (the command timeout bounds Redis's own wait);
 * - concurrency: at most `maxInFlight` lookups reach Redis at once (the rest are refused, not
 *   queued); concurrent lookups of one timestamp share one;
 * - repetition: a miss is remembered for `missTtlMs`, so a client repeating a 404 costs Redis
 *   one pipeline per timestamp per period.
 *
 * A lookup that cannot be made (Redis not ready, timed out, too many at once) rejects with
 * `CatalogUnavailableError`; the caller decides between 404 and 503.
 */
import { LRUCache } from 'lru-cache';
import { CatalogUnavailableError } from '../../domain/archive-errors';
import type { ArchiveMeta } from '../../domain/ports';
import { DeadlineError, withDeadline } from '../../shared/deadline';
import type { RedisClient } from './client';
import { decodeMetaHash } from './catalog-codec';
import { archiveKey, TIMESTAMPS_KEY } from './keys';

export interface CatalogLookupOptions {
  /** Command client (no offline queue: a lookup while disconnected fails at once). */
  readonly client: RedisClient;
  readonly now: () => number;
  /** Longest wait for one lookup (default 500 ms). */
  readonly timeoutMs?: number | undefined;
  /** Lookups reaching Redis at once (default 8). */
  readonly maxInFlight?: number;
  /** How long a miss is remembered (default 1000 ms). */
  readonly missTtlMs?: number;
}

/** Looks one timestamp up; see the module comment. */
export type CatalogLookup = (timestamp: string) => Promise<ArchiveMeta | undefined>;

/** Most misses remembered at once; a flood of distinct timestamps evicts the oldest. */
const MAX_REMEMBERED_MISSES = 4096;

export function createCatalogLookup(options: CatalogLookupOptions): CatalogLookup {
  const { client, now } = options;
  const timeoutMs = options.timeoutMs ?? 500;
  const maxInFlight = options.maxInFlight ?? 8;
  const misses = new LRUCache<string, true>({
    max: MAX_REMEMBERED_MISSES,
    ttl: options.missTtlMs ?? 1000,
  });
  const pending = new Map<string, Promise<ArchiveMeta | undefined>>();
  let inFlight = 0;

  const ask = async (timestamp: string): Promise<ArchiveMeta | undefined> => {
    const replies = await client
      .pipeline()
      .zscore(TIMESTAMPS_KEY, timestamp)
      .hgetall(archiveKey(timestamp))
      .exec();
    const [scoreReply, hashReply] = replies ?? [];
    const failed = scoreReply?.[0] ?? hashReply?.[0];
    if (failed || !scoreReply || !hashReply) throw failed ?? new Error('missing pipeline reply');
    if (scoreReply[1] === null) return undefined;
    const decoded = decodeMetaHash(timestamp, hashReply[1] as Record<string, string>, now());
    return decoded.ok ? decoded.meta : undefined;
  };

  const lookup = (timestamp: string): Promise<ArchiveMeta | undefined> => {
    inFlight += 1;
    const asked = ask(timestamp).finally(() => {
      inFlight -= 1;
    });
    return withDeadline(asked, timeoutMs, 'catalog lookup')
      .then(
        (meta) => {
          if (meta === undefined) misses.set(timestamp, true);
          return meta;
        },
        (err: unknown) => {
          if (err instanceof DeadlineError)
            throw new CatalogUnavailableError(`lookup timed out after ${timeoutMs} ms`);
          throw err instanceof CatalogUnavailableError
            ? err
            : new CatalogUnavailableError((err as Error).message, { cause: err });
        },
      )
      .finally(() => pending.delete(timestamp));
  };

  return (timestamp) => {
    if (misses.get(timestamp)) return Promise.resolve(undefined);
    const shared = pending.get(timestamp);
    if (shared) return shared;
    if (client.status !== 'ready')
      return Promise.reject(new CatalogUnavailableError(`redis ${client.status}`));
    if (inFlight >= maxInFlight)
      return Promise.reject(new CatalogUnavailableError('too many lookups at once'));
    const started = lookup(timestamp);
    pending.set(timestamp, started);
    return started;
  };
}
