/**
 * Leaflet example: the z/x/y route in `L.GridLayer`s whose tiles are fetched through the
 * client library, because Leaflet's `L.tileLayer` loads `<img src>` and a browser cannot add
 * `Authorization` / `X-App` headers to an image request (docs/examples.md). One layer per
 * frame animates the latest frames over the viewer's packaged base map: fills below the radar,
 * borders and coastlines above it.
 */
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
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

function addBasemap(map: L.Map, basemap: Basemap): void {
  // Fills under the radar (tilePane is 200), lines over it (overlayPane is 400).
  // Drawn on canvas (the map prefers it): thousands of SVG paths would slow every pan.
  map.createPane('basemap-fill').style.zIndex = '150';
  for (const layer of BASEMAP_LAYERS)
    L.geoJSON(
      basemap[layer.data],
      layer.kind === 'fill'
        ? {
            pane: 'basemap-fill',
            interactive: false,
            style: { stroke: false, fill: true, fillColor: layer.colour, fillOpacity: 1 },
          }
        : {
            interactive: false,
            style: { color: layer.colour, weight: layer.width, opacity: 1, fill: false },
          },
    ).addTo(map);
}

/** A grid layer of one frame's tiles, fetched with both credentials. */
function radarLayer(
  client: RadarClient,
  timestamp: string,
  options: L.GridLayerOptions,
): L.GridLayer {
  const RadarLayer = L.GridLayer.extend({
    createTile(coords: L.Coords, done: L.DoneCallback): HTMLElement {
      const img = document.createElement('img');
      img.alt = '';
      client.tile(timestamp, coords.z, coords.x, coords.y).then(
        (blob) => {
          img.onload = () => {
            URL.revokeObjectURL(img.src);
            tileLoaded();
            done(undefined, img);
          };
          img.src = URL.createObjectURL(blob);
        },
        (error: Error) => done(error, img),
      );
      return img;
    },
  });
  return new (RadarLayer as unknown as new (options: L.GridLayerOptions) => L.GridLayer)(options);
}

/** The frames as Leaflet layers: shown at opacity 1, the others at 0 (still loading). */
function leafletFrames(map: L.Map, create: (timestamp: string) => L.GridLayer): FrameLayers {
  return createFrameLayers({
    create(timestamp) {
      const entry = { layer: create(timestamp).setOpacity(0), loaded: false };
      entry.layer.on('loading', () => (entry.loaded = false));
      entry.layer.on('load', () => (entry.loaded = true));
      entry.layer.addTo(map);
      return entry;
    },
    setOpacity: (entry, opacity) => entry.layer.setOpacity(opacity),
    remove: (entry) => entry.layer.remove(),
    isLoaded: (entry) => entry.loaded,
  });
}

async function main(): Promise<void> {
  const [{ client, timestamp }, basemap] = await Promise.all([startExample(), fetchBasemap()]);
  const tileJson = await client.tileJson(timestamp);
  const [west, south, east, north] = tileJson.bounds;
  const map = L.map('map', { attributionControl: true, preferCanvas: true });
  map.fitBounds([
    [south, west],
    [north, east],
  ]);
  for (const credit of BASEMAP_CREDITS)
    map.attributionControl.addAttribution(basemapCreditText(credit));
  addBasemap(map, basemap);
  window.radarExample = { project: (lon, lat) => map.latLngToContainerPoint([lat, lon]) };

  const options: L.GridLayerOptions = {
    minZoom: tileJson.minzoom,
    maxNativeZoom: tileJson.maxzoom,
    bounds: L.latLngBounds([south, west], [north, east]),
    attribution: tileJson.attribution,
  };
  animateLatestFrames(
    client,
    leafletFrames(map, (ts) => radarLayer(client, ts, options)),
  );
}

main().catch(showError);
