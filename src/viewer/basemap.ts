/**
 * The shape of `basemap.json`, written by the viewer build (`build-viewer.ts`, Node) and read
 * by the pages (`web/`, browser), and the colours the pages draw it in. No imports beyond
 * types, so both sides (and the browser tests) can import it.
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

/**
 * The base map's colours, shared by the viewer and the Leaflet and OpenLayers example pages so
 * every page draws the same dark map (which keeps the NWS palette's contrast).
 */
export const BASEMAP_COLOURS = {
  /** Sea, and everything outside the land polygons. */
  background: '#0b1622',
  /** Land outside the United States. */
  land: '#1c2229',
  /** US states. */
  states: '#242b33',
  countryBorders: '#5b6672',
  coastline: '#5f6c79',
  stateBorders: '#8793a0',
  nation: '#b3bec9',
} as const;
