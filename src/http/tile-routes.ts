/**
 * Mounts the map-client routes (z/x/y tiles and TileJSON) behind the same guard chain as the
 * archive route, so method, credentials, origin and rate limit apply to them identically.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { ArchiveStore, CatalogReader } from '../domain/ports';
import { createTileLocator, type TileLocator } from '../tiles/tile-locator';
import { TILE_ROUTE, TILEJSON_ROUTE } from './routes/paths';
import { tileRoute } from './routes/tile';
import { tileJsonRoute } from './routes/tilejson';

export interface TileRoutesDeps {
  readonly catalog: CatalogReader;
  readonly store: ArchiveStore;
  readonly cacheControl: 'private' | 'public';
  /** Shared locator; by default one is created over `store` (its caches live per app). */
  readonly tiles?: TileLocator;
}

export function mountTileRoutes(
  router: Router,
  guarded: readonly Middleware[],
  deps: TileRoutesDeps,
): void {
  const tiles = deps.tiles ?? createTileLocator({ store: deps.store });
  router.all(TILEJSON_ROUTE, ...guarded, tileJsonRoute({ ...deps, tiles }));
  router.all(TILE_ROUTE, ...guarded, tileRoute({ ...deps, tiles }));
}
