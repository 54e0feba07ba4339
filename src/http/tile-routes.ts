/**
 * Mounts the map-client routes (z/x/y tiles and TileJSON) behind the same guard chain as the
 * archive route, so method, credentials, origin and rate limit apply to them identically.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { ArchiveStore, CatalogReader } from '../domain/ports';
import type { TileLocator } from '../tiles/tile-locator';
import { TILE_ROUTE, TILEJSON_ROUTE } from './routes/paths';
import { tileRoute } from './routes/tile';
import { tileJsonRoute } from './routes/tilejson';

export interface TileRoutesDeps {
  readonly catalog: CatalogReader;
  readonly store: ArchiveStore;
  readonly cacheControl: 'private' | 'public';
  readonly tiles: TileLocator;
}

export function mountTileRoutes(
  router: Router,
  guarded: readonly Middleware[],
  deps: TileRoutesDeps,
): void {
  router.all(TILEJSON_ROUTE, ...guarded, tileJsonRoute(deps));
  router.all(TILE_ROUTE, ...guarded, tileRoute(deps));
}
