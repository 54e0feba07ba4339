/**
 * The forecast catalog in memory, for embedded mode: the one process is the ingest leader and
 * the replica, so what ingest writes is the view at once.
 */
import {
  createForecastView,
  EMPTY_FORECAST_VIEW,
  EMPTY_MANIFEST,
  type ForecastCatalogReader,
  type ForecastCatalogWriter,
  type ForecastManifest,
} from '../../domain/forecast-catalog';

export type MemoryForecastCatalog = ForecastCatalogReader & ForecastCatalogWriter;

/** An empty in-memory forecast catalog. */
export function createMemoryForecastCatalog(): MemoryForecastCatalog {
  let manifest: ForecastManifest = EMPTY_MANIFEST;
  let view = EMPTY_FORECAST_VIEW;
  return {
    current: () => view,
    read: async () => manifest,
    async write(next) {
      manifest = next;
      view = createForecastView(view.version + 1, next);
    },
  };
}
