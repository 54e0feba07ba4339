/**
 * The base map as a MapLibre style: fills and lines from GeoJSON shipped with the page
 * (`basemap.json`, built from npm packages), no glyphs, sprites or network tiles, drawn as
 * every page draws it (`BASEMAP_LAYERS`). Radar layers go between the fills and the lines
 * ({@link RADAR_BEFORE_LAYER}) so borders stay visible over echoes.
 */
import type { LayerSpecification, StyleSpecification } from 'maplibre-gl';
import { BASEMAP_COLOURS, BASEMAP_LAYERS, type Basemap } from '../src/viewer/basemap';

/** First line layer: radar frames are inserted below it. */
export const RADAR_BEFORE_LAYER = BASEMAP_LAYERS.find((layer) => layer.kind === 'line')!.id;

/** Dark style, so the NWS palette keeps its contrast. */
export function basemapStyle(basemap: Basemap): StyleSpecification {
  const sources: StyleSpecification['sources'] = {};
  for (const { data } of BASEMAP_LAYERS) sources[data] = { type: 'geojson', data: basemap[data] };
  const layers: LayerSpecification[] = [
    {
      id: 'background',
      type: 'background',
      paint: { 'background-color': BASEMAP_COLOURS.background },
    },
  ];
  for (const layer of BASEMAP_LAYERS)
    layers.push(
      layer.kind === 'fill'
        ? { id: layer.id, type: 'fill', source: layer.data, paint: { 'fill-color': layer.colour } }
        : {
            id: layer.id,
            type: 'line',
            source: layer.data,
            paint: { 'line-color': layer.colour, 'line-width': layer.width },
          },
    );
  return { version: 8, sources, layers };
}
