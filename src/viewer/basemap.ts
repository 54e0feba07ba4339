/**
 * The shape of `basemap.json`: written by the viewer build (`build-viewer.ts`, Node) and read
 * by the page (`web/`, browser). Types only, so both sides can import it.
 */
import type { FeatureCollection } from 'geojson';

/** The base map the page draws, as GeoJSON feature collections. */
export interface Basemap {
  /** World land polygons (Natural Earth 1:50m via world-atlas); also drawn as coastline. */
  readonly land: FeatureCollection;
  /** Borders between countries (world-atlas 1:50m). */
  readonly countryBorders: FeatureCollection;
  /** US state polygons (US Census 1:10m via us-atlas). */
  readonly states: FeatureCollection;
  /** Borders shared by two states. */
  readonly stateBorders: FeatureCollection;
  /** Outline of the United States. */
  readonly nation: FeatureCollection;
}
