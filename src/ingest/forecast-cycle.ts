/**
 * The forecast half of an ingest pass: forecast archives (`forecast-{base}-{LLL}.pmtiles`,
 * stored beside the observed ones) are validated like observed archives plus their forecast
 * metadata, the listing rule (`forecast-listing.ts`) decides the next manifest, which is written
 * when it changed, and the objects of bases that expired are deleted.
 *
 * Only the ingest leader runs it. Valid frames are remembered by object version, so an
 * unchanged frame is read once per leader; a new leader reads them again (a few small heads)
 * and takes over when each base was superseded from the stored manifest, so a failover does
 * not restart anyone's grace. Rejected objects are logged and counted once per version, like
 * observed ones; read failures are retried with the same per-object backoff.
 */
import { FUTURE_SKEW_MS } from '../domain/archive-meta';
import type { ForecastCatalogWriter } from '../domain/forecast-catalog';
import { forecastFromFileName, type ForecastFrameId } from '../domain/forecast-frames';
import { sameManifest } from '../domain/forecast-manifest-codec';
import type { ArchiveSource, StoredObject } from '../domain/ports';
import { parseTimestamp } from '../domain/timestamps';
import type { Logger } from '../logger';
import { createForecastObjectCheck } from './forecast-object-check';
import { decideListing, type ValidFrame } from './forecast-listing';
import type { IngestEvents, IngestRejectionReason } from './ingest-events';
import { createObjectBackoff, objectVersion } from './object-backoff';
import { HEAD_BYTES } from './ingest-cycle';
import { classifyReadFailure, describeReadFailure } from './read-failure';

export interface ForecastCycleOptions extends IngestEvents {
  readonly source: ArchiveSource;
  readonly catalog: ForecastCatalogWriter;
  readonly logger: Logger;
  /** How long a superseded base stays readable (`RADAR_FORECAST_GRACE_S`), ms. */
  readonly graceMs: number;
  readonly now?: () => number;
}

/** Thrown when the store as a whole fails: the pass stops, like the observed half's. */
class ForecastStoreFailure extends Error {
  constructor(readonly original: unknown) {
    super(describeReadFailure(original));
    this.name = 'ForecastStoreFailure';
  }
}

export interface ForecastCycle {
  /**
   * One pass over the forecast objects of a listing (`objects`: only forecast names);
   * `cutoffMs` is observed retention's cutoff. Rejects only when the store or catalog fails.
   */
  run(objects: readonly StoredObject[], cutoffMs: number): Promise<void>;
  tracked(): { readonly rejected: number; readonly failing: number };
}

export function createForecastCycle(options: ForecastCycleOptions): ForecastCycle {
  const { source, catalog, logger } = options;
  const now = options.now ?? Date.now;
  const valid = new Map<string, ValidFrame & { readonly version: string }>();
  const rejected = new Map<string, string>();
  const superseded = new Map<string, number>();
  const backoff = createObjectBackoff();
  const check = createForecastObjectCheck(logger);
  let listedBase: string | undefined;

  const reject = (object: StoredObject, reason: IngestRejectionReason) => {
    rejected.set(object.name, objectVersion(object));
    logger.warn({ object: object.name, size: object.size, reason }, 'forecast archive rejected');
    options.onRejected?.(object.name, reason);
  };

  const read = async (object: StoredObject, offset: number, length: number) => {
    try {
      const bytes =
        offset === 0
          ? await source.readHead(object.name, length)
          : await source.readRange(object.name, offset, length);
      backoff.succeed(object.name);
      return bytes;
    } catch (err) {
      const reason = classifyReadFailure(err);
      if (reason === 'store') throw new ForecastStoreFailure(err);
      const failure = backoff.fail(object.name, objectVersion(object), reason, now());
      if (failure.attempts === 1)
        logger.warn(
          { object: object.name, reason, err: describeReadFailure(err) },
          'object unreadable; retrying with backoff',
        );
      options.onReadFailed?.(object.name, reason);
      return undefined;
    }
  };

  /** Validates one forecast object unless its version is already known. */
  const consider = async (object: StoredObject, id: ForecastFrameId) => {
    const v = objectVersion(object);
    if (valid.get(object.name)?.version === v || rejected.get(object.name) === v) return;
    valid.delete(object.name);
    if ((parseTimestamp(id.base) ?? 0) > now() + FUTURE_SKEW_MS) return;
    if (backoff.waiting(object.name, v, now())) return;
    const head = await read(object, 0, HEAD_BYTES);
    if (head === undefined) return;
    const verdict = await check(object, id, head, (offset, length) => read(object, offset, length));
    if (verdict === 'unreadable') return;
    if ('reason' in verdict) return reject(object, verdict.reason);
    const key = object.name.slice(0, -'.pmtiles'.length);
    const meta = {
      timestamp: key,
      size: object.size,
      etag: object.etag,
      lastModified: object.lastModified,
    };
    valid.set(object.name, { id, leads: verdict.leads, meta, version: v });
  };

  /** Deletes the objects of expired bases; a failed delete is retried on the next pass. */
  const remove = async (object: StoredObject) => {
    try {
      await source.remove(object.name);
      logger.info({ object: object.name }, 'expired forecast archive deleted');
    } catch (err) {
      const reason = classifyReadFailure(err);
      logger.warn(
        { object: object.name, reason, err: describeReadFailure(err) },
        'expired forecast archive not deleted; retrying next pass',
      );
      options.onReadFailed?.(object.name, reason);
    }
  };

  return {
    tracked: () => ({ rejected: rejected.size, failing: backoff.size() }),
    async run(objects, cutoffMs) {
      const stored = await catalog.read();
      for (const b of stored.bases)
        if (b.supersededAtMs !== undefined && !superseded.has(b.base))
          superseded.set(b.base, b.supersededAtMs);
      const named = objects.flatMap((object) => {
        const id = forecastFromFileName(object.name);
        return id === undefined ? [] : [{ object, id }];
      });
      const names = new Set(named.map(({ object }) => object.name));
      for (const map of [valid, rejected])
        for (const n of map.keys()) if (!names.has(n)) map.delete(n);
      backoff.retain(names);
      // Newest base first, so a backlog lists the most useful base soonest.
      named.sort((a, b) => (a.object.name < b.object.name ? 1 : -1));
      try {
        for (const { object, id } of named)
          if ((parseTimestamp(id.base) ?? 0) >= cutoffMs) await consider(object, id);
      } catch (err) {
        // The store failed as a whole: the manifest stays as it is until a pass can read.
        throw err instanceof ForecastStoreFailure ? err.original : err;
      }
      const decision = decideListing({
        frames: valid.values(),
        superseded,
        nowMs: now(),
        graceMs: options.graceMs,
        cutoffMs,
      });
      if (!sameManifest(stored, decision.manifest)) await catalog.write(decision.manifest);
      const listed = decision.manifest.bases[0];
      const nowListed = listed?.supersededAtMs === undefined ? listed?.base : undefined;
      if (nowListed !== listedBase && nowListed !== undefined)
        logger.info({ base: nowListed, leads: listed!.leads }, 'forecast base listed');
      listedBase = nowListed;
      const bases = new Set(named.map(({ id }) => id.base));
      for (const base of superseded.keys()) if (!bases.has(base)) superseded.delete(base);
      for (const { object, id } of named) if (decision.expired(id.base)) await remove(object);
    },
  };
}
