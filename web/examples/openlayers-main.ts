/**
 * OpenLayers example: XYZ sources over the z/x/y route whose `tileLoadFunction` fetches each
 * tile through the client library (both credentials, 429 handling) and hands the image a blob
 * URL. With a TileJSON-aware setup, `ol/source/TileJSON` takes `client.tileJsonUrl(ts)` the same
 * way. One layer per frame animates the latest frames over the viewer's packaged base map:
 * fills below the radar, borders and coastlines above it.
 */
import OlMap from 'ol/Map';
import View from 'ol/View';
import GeoJSON from 'ol/format/GeoJSON';
import type ImageTile from 'ol/ImageTile';
import TileLayer from 'ol/layer/Tile';
import VectorLayer from 'ol/layer/Vector';
import { fromLonLat, transformExtent } from 'ol/proj';
import VectorSource from 'ol/source/Vector';
import XYZ from 'ol/source/XYZ';
import { Fill, Stroke, Style } from 'ol/style';
import type Tile from 'ol/Tile';
import 'ol/ol.css';
// After the library's CSS, so the page's rules win.
import './example-page.css';
import type { RadarClient } from '../../src/client';
import {
  BASEMAP_CREDITS,
  BASEMAP_LAYERS,
  basemapCreditText,
  type Basemap,
} from '../../src/viewer/basemap';
import { fetchBasemap } from '../page-json';
import { animateLatestFrames, createFrameLayers, type FrameLayers } from './example-animation';
import { showError, startExample, tileLoaded } from './example-session';

/** Base map fills (z-index 0, under the radar at 1) and lines (2, over it). */
function basemapLayers(basemap: Basemap): VectorLayer[] {
  const format = new GeoJSON({ featureProjection: 'EPSG:3857' });
  return BASEMAP_LAYERS.map(
    (layer) =>
      new VectorLayer({
        source: new VectorSource({ features: format.readFeatures(basemap[layer.data]) }),
        style:
          layer.kind === 'fill'
            ? new Style({ fill: new Fill({ color: layer.colour }) })
            : new Style({ stroke: new Stroke({ color: layer.colour, width: layer.width }) }),
        zIndex: layer.kind === 'fill' ? 0 : 2,
      }),
  );
}

/** A tile source of one frame, each tile fetched with both credentials. */
function radarSource(client: RadarClient, timestamp: string, minZoom: number, maxZoom: number) {
  return new XYZ({
    url: client.tileUrl(timestamp),
    minZoom,
    maxZoom,
    tileLoadFunction: (tile: Tile) => {
      const [z, x, y] = tile.getTileCoord() as [number, number, number];
      const image = (tile as ImageTile).getImage() as HTMLImageElement;
      client.tile(timestamp, z, x, y).then(
        (blob) => {
          image.onload = () => {
            URL.revokeObjectURL(image.src);
            tileLoaded();
          };
          image.src = URL.createObjectURL(blob);
        },
        () => tile.setState(3), // TileState.ERROR
      );
    },
  });
}

/**
 * The frames as OpenLayers layers within `extent` (the archive's bounds): shown at opacity 1,
 * the others at 0 (still loading).
 */
function openLayersFrames(
  map: OlMap,
  extent: number[],
  create: (timestamp: string) => XYZ,
): FrameLayers {
  return createFrameLayers({
    create(timestamp) {
      const source = create(timestamp);
      const entry = {
        layer: new TileLayer({ source, extent, opacity: 0, zIndex: 1 }),
        pending: 0,
        ended: 0,
      };
      source.on('tileloadstart', () => entry.pending++);
      const end = () => {
        entry.pending--;
        entry.ended++;
      };
      source.on('tileloadend', end);
      source.on('tileloaderror', end);
      map.addLayer(entry.layer);
      return entry;
    },
    setOpacity: (entry, opacity) => entry.layer.setOpacity(opacity),
    remove: (entry) => map.removeLayer(entry.layer),
    isLoaded: (entry) => entry.ended > 0 && entry.pending === 0,
  });
}

async function main(): Promise<void> {
  const [{ client, timestamp }, basemap] = await Promise.all([startExample(), fetchBasemap()]);
  const tileJson = await client.tileJson(timestamp);
  const extent = transformExtent([...tileJson.bounds], 'EPSG:4326', 'EPSG:3857');
  const map = new OlMap({ target: 'map', layers: basemapLayers(basemap), view: new View() });
  map.getView().fit(extent, { padding: [12, 12, 12, 12] });
  window.radarExample = {
    project: (lon, lat) => {
      const [x, y] = map.getPixelFromCoordinate(fromLonLat([lon, lat])) as [number, number];
      return { x, y };
    },
  };

  const attribution = [
    tileJson.attribution,
    ...BASEMAP_CREDITS.map((credit) => basemapCreditText(credit)),
  ].join(' · ');
  const frames = openLayersFrames(map, extent, (ts) => {
    const source = radarSource(client, ts, tileJson.minzoom, tileJson.maxzoom);
    source.setAttributions(attribution);
    return source;
  });
  animateLatestFrames(client, frames);
}

main().catch(showError);
