/**
 * The forecast catalog in memory, for embedded mode: the one process is the ingest leader and
 * the replica, so what ingest writes is the view at once.
 */
import {
  createForecastView,
  EMPTY_FORECAST_VIEW,
  type ForecastCatalogReader,
  type ForecastCatalogWriter,
} from '../../domain/forecast-catalog';

export type MemoryForecastCatalog = ForecastCatalogReader & ForecastCatalogWriter;

/** An empty in-memory forecast catalog. */
export function createMemoryForecastCatalog(): MemoryForecastCatalog {
  // The view keeps the manifest it was built from: that is what `read` answers.
  let view = EMPTY_FORECAST_VIEW;
  return {
    current: () => view,
    read: async () => view.manifest,
    async write(next) {
      view = createForecastView(view.version + 1, next);
    },
  };
}
