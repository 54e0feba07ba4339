/**
 * One ingest pass over a store that holds observed and forecast archives side by side: the
 * store is listed once; the observed cycle sees the observed names (and any name that is
 * neither, which it rejects as `bad-name`), the forecast cycle the forecast names
 * (`forecast-{base}-{LLL}.pmtiles`), with the same retention cutoff. Used by the ingest worker
 * and the embedded ingest alike.
 */
import { forecastFromFileName } from '../domain/forecast-frames';
import type { ArchiveSource, StoredObject } from '../domain/ports';
import type { ForecastCycle } from './forecast-cycle';
import type { IngestCycle } from './ingest-cycle';

export interface IngestPassParts {
  readonly source: ArchiveSource;
  /** The observed cycle, made over the source it is handed (which lists observed names only). */
  readonly observed: (source: ArchiveSource) => IngestCycle;
  readonly forecast: ForecastCycle;
  readonly retentionS: number;
  readonly now?: () => number;
}

const isForecast = (object: StoredObject) => forecastFromFileName(object.name) !== undefined;

/** The pass: observed archives first (they gate `latest`), then forecasts from the same listing. */
export function createIngestPass(parts: IngestPassParts): IngestCycle {
  const { source, forecast } = parts;
  const now = parts.now ?? Date.now;
  let listing: StoredObject[] | undefined;
  const observedSource: ArchiveSource = {
    list: async () => {
      const all = await source.list();
      listing = all;
      return all.filter((object) => !isForecast(object));
    },
    readHead: (name, length) => source.readHead(name, length),
    readRange: (name, offset, length) => source.readRange(name, offset, length),
    remove: (name) => source.remove(name),
  };
  const observed = parts.observed(observedSource);
  return {
    tracked() {
      const a = observed.tracked();
      const b = forecast.tracked();
      return { rejected: a.rejected + b.rejected, failing: a.failing + b.failing };
    },
    async run() {
      listing = undefined;
      const cutoffMs = now() - parts.retentionS * 1000;
      let failure: unknown;
      await observed.run().catch((err: unknown) => {
        failure = err;
      });
      // A listing that failed, or an empty one (more likely a fault than news), changes nothing.
      const objects = listing as StoredObject[] | undefined;
      if (objects !== undefined && objects.length > 0)
        await forecast.run(objects.filter(isForecast), cutoffMs);
      if (failure !== undefined) throw failure;
    },
  };
}
