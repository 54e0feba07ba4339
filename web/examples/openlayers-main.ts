/**
 * OpenLayers example: an XYZ source over the z/x/y route whose `tileLoadFunction` fetches each
 * tile through the client library (both credentials, 429 handling) and hands the image a blob
 * URL. With a TileJSON-aware setup, `ol/source/TileJSON` takes `client.tileJsonUrl(ts)` the same way.
 */
import Map from 'ol/Map';
import View from 'ol/View';
import TileLayer from 'ol/layer/Tile';
import XYZ from 'ol/source/XYZ';
import type ImageTile from 'ol/ImageTile';
import type Tile from 'ol/Tile';
import { transformExtent } from 'ol/proj';
import 'ol/ol.css';
import { showError, startExample, tileLoaded } from './example-session';

async function main(): Promise<void> {
  const { client, timestamp } = await startExample();
  const tileJson = await client.tileJson(timestamp);
  const extent = transformExtent([...tileJson.bounds], 'EPSG:4326', 'EPSG:3857');
  const source = new XYZ({
    url: client.tileUrl(timestamp),
    minZoom: tileJson.minzoom,
    maxZoom: tileJson.maxzoom,
    attributions: tileJson.attribution,
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
  const map = new Map({
    target: 'map',
    layers: [new TileLayer({ source, extent })],
    view: new View(),
  });
  map.getView().fit(extent, { padding: [12, 12, 12, 12] });
}

main().catch(showError);
