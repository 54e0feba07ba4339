/**
 * What the archive, tile and TileJSON answers need to know about the kind of frame a URL
 * names, so one answerer of each serves observed and forecast frames alike: how the URL's id
 * is checked (400) and looked up (404), the route templates its answers are labelled with,
 * the public path its TileJSON's tile URLs extend, and which metadata fields its TileJSON
 * carries. Observed frames are named by a timestamp and listed in the catalog; forecast
 * frames by base and lead, and readable while the forecast catalog holds them.
 */
import type { ForecastCatalogReader } from '../../domain/forecast-catalog';
import {
  forecastKey,
  forecastPathStem,
  parseForecastKey,
  parseLead,
} from '../../domain/forecast-frames';
import type { ArchiveMeta, CatalogReader } from '../../domain/ports';
import { parseTimestamp } from '../../domain/timestamps';
import { BadRequestError, NotFoundError } from '../../errors';
import { withPublishedMeta } from './published-meta';
import {
  ARCHIVE_ROUTE,
  FORECAST_ARCHIVE_ROUTE,
  FORECAST_SCHEME_TILE_ROUTE,
  FORECAST_SCHEME_TILEJSON_ROUTE,
  FORECAST_TILE_ROUTE,
  FORECAST_TILEJSON_ROUTE,
  SCHEME_TILE_ROUTE,
  SCHEME_TILEJSON_ROUTE,
  TILE_ROUTE,
  TILEJSON_ROUTE,
} from './route-table';

/** The templates a kind of frame's answers are labelled with (metrics, logs). */
export interface FrameRoutes {
  readonly archive: string;
  readonly tilejson: string;
  readonly tile: string;
  readonly schemeTilejson: string;
  readonly schemeTile: string;
}

export interface FrameLookup {
  readonly routes: FrameRoutes;
  /**
   * Calls `answer` with the archive the URL's id (its path parameters before z/x/y or the
   * scheme) names: throws `BadRequestError` for a malformed id, `NotFoundError` for one not
   * readable. Synchronous when the id is in memory.
   */
  withMeta<T>(id: readonly string[], answer: (meta: ArchiveMeta) => T | Promise<T>): T | Promise<T>;
  /** Whether `id` is well formed (checked before anything else is looked up). */
  valid(id: readonly string[]): boolean;
  /** The public path of the frame, without suffix: `/tiles/{ts}`, `/forecasts/{base}/{lead}`. */
  path(meta: ArchiveMeta): string;
  /** Metadata fields (objects) the frame's TileJSON carries as they are. */
  readonly tileJsonFields: readonly string[];
}

/** Observed frames: `/tiles/{timestamp}...`, listed in the catalog (`published-meta.ts`). */
export function observedFrames(catalog: CatalogReader): FrameLookup {
  return {
    routes: {
      archive: ARCHIVE_ROUTE,
      tilejson: TILEJSON_ROUTE,
      tile: TILE_ROUTE,
      schemeTilejson: SCHEME_TILEJSON_ROUTE,
      schemeTile: SCHEME_TILE_ROUTE,
    },
    valid: ([timestamp]) => parseTimestamp(timestamp!) !== undefined,
    withMeta([timestamp], answer) {
      // A listed timestamp answers from the one snapshot lookup. Only valid timestamps are
      // ever published, so a miss is parsed (400) before the lookup that may reach the index.
      const listed = catalog.current().get(timestamp!);
      if (listed !== undefined) return answer(listed);
      if (parseTimestamp(timestamp!) === undefined) throw new BadRequestError();
      return withPublishedMeta(catalog, timestamp!, answer);
    },
    path: (meta) => `/tiles/${meta.timestamp}`,
    tileJsonFields: [],
  };
}

/**
 * Forecast frames: `/forecasts/{base}/{lead}...` (a 12-digit base, a canonical decimal lead),
 * readable while the forecast catalog holds them: listed, or superseded within the grace.
 */
export function forecastFrames(forecasts: ForecastCatalogReader): FrameLookup {
  const valid = ([base, lead]: readonly string[]) =>
    parseTimestamp(base!) !== undefined && parseLead(lead!) !== undefined;
  return {
    routes: {
      archive: FORECAST_ARCHIVE_ROUTE,
      tilejson: FORECAST_TILEJSON_ROUTE,
      tile: FORECAST_TILE_ROUTE,
      schemeTilejson: FORECAST_SCHEME_TILEJSON_ROUTE,
      schemeTile: FORECAST_SCHEME_TILE_ROUTE,
    },
    valid,
    withMeta([base, leadSegment], answer) {
      // As for observed frames, a held frame answers from the one view lookup: the view holds
      // only well-formed keys, so a hit's base is a timestamp (the tile answer has checked the
      // id already). A miss is checked (400) before anything else is asked.
      const lead = parseLead(leadSegment!);
      if (lead === undefined) throw new BadRequestError();
      const key = forecastKey({ base: base!, lead });
      const view = forecasts.current();
      const meta = view.get(key);
      if (meta !== undefined) return answer(meta);
      if (parseTimestamp(base!) === undefined) throw new BadRequestError();
      // A base newer than the one listed here may be listed in the shared manifest already
      // (this replica has not heard yet): asked there, so no replica answers 404 for a frame
      // another one lists. The listed base and older ones are answered from memory.
      const listed = view.listedBase;
      if (forecasts.find === undefined || (listed !== undefined && base! <= listed))
        throw new NotFoundError();
      return forecasts.find(key).then((found) => {
        if (found === undefined) throw new NotFoundError();
        return answer(found);
      });
    },
    path: (meta) => forecastPathStem(parseForecastKey(meta.timestamp)!),
    tileJsonFields: ['forecast', 'motion'],
  };
}
