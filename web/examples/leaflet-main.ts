/**
 * Leaflet example: the z/x/y route in an `L.GridLayer` whose tiles are fetched through the
 * client library, because Leaflet's `L.tileLayer` loads `<img src>` and a browser cannot add
 * `Authorization` / `X-App` headers to an image request (docs/examples.md).
 */
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import { showError, startExample, tileLoaded } from './example-session';

async function main(): Promise<void> {
  const { client, timestamp } = await startExample();
  const tileJson = await client.tileJson(timestamp);
  const [west, south, east, north] = tileJson.bounds;
  const map = L.map('map', { attributionControl: true });
  map.fitBounds([
    [south, west],
    [north, east],
  ]);

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
  new (RadarLayer as unknown as new (options: L.GridLayerOptions) => L.GridLayer)({
    minZoom: tileJson.minzoom,
    maxNativeZoom: tileJson.maxzoom,
    bounds: L.latLngBounds([south, west], [north, east]),
    attribution: tileJson.attribution,
  }).addTo(map);
}

main().catch(showError);
