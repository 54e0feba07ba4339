/**
 * The base map style: fills and lines from GeoJSON shipped with the page (`basemap.json`,
 * built from npm packages), no glyphs, sprites or network tiles. Radar layers go between the
 * fills and the lines ({@link RADAR_BEFORE_LAYER}) so borders stay visible over echoes.
 */
import type { StyleSpecification } from 'maplibre-gl';
import type { FeatureCollection } from 'geojson';
import { BASEMAP_COLOURS, type Basemap } from '../src/viewer/basemap';

export { BASEMAP_COLOURS, type Basemap };

/** First line layer: radar frames are inserted below it. */
export const RADAR_BEFORE_LAYER = 'country-borders';

/** Dark style, so the NWS palette keeps its contrast. */
export function basemapStyle(basemap: Basemap): StyleSpecification {
  const geojson = (data: FeatureCollection) => ({ type: 'geojson' as const, data });
  return {
    version: 8,
    sources: {
      land: geojson(basemap.land),
      'country-borders': geojson(basemap.countryBorders),
      states: geojson(basemap.states),
      'state-borders': geojson(basemap.stateBorders),
      nation: geojson(basemap.nation),
    },
    layers: [
      {
        id: 'background',
        type: 'background',
        paint: { 'background-color': BASEMAP_COLOURS.background },
      },
      { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': BASEMAP_COLOURS.land } },
      {
        id: 'states',
        type: 'fill',
        source: 'states',
        paint: { 'fill-color': BASEMAP_COLOURS.states },
      },
      {
        id: RADAR_BEFORE_LAYER,
        type: 'line',
        source: 'country-borders',
        paint: { 'line-color': BASEMAP_COLOURS.countryBorders, 'line-width': 0.8 },
      },
      {
        id: 'coastline',
        type: 'line',
        source: 'land',
        paint: { 'line-color': BASEMAP_COLOURS.coastline, 'line-width': 0.8 },
      },
      {
        id: 'state-borders',
        type: 'line',
        source: 'state-borders',
        paint: { 'line-color': BASEMAP_COLOURS.stateBorders, 'line-width': 0.7 },
      },
      {
        id: 'nation',
        type: 'line',
        source: 'nation',
        paint: { 'line-color': BASEMAP_COLOURS.nation, 'line-width': 1.2 },
      },
    ],
  };
}
