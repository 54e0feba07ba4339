/**
 * The MapLibre helper's bookkeeping, on an in-memory stand-in for `maplibregl.Map` (the real
 * MapLibre runs in the browser test): which sources and layers exist, which one is visible,
 * and that frames leaving the list or the cache release their readers and the protocol; and
 * a palette swap: tile bodies pass through it, and switching reloads only the shown frame.
 */
import { Protocol } from 'pmtiles';
import type { ProtocolHandler } from '../../../src/client/frame-registry';
import {
  createRadarFrames,
  recolouringHandler,
  type MapLibreProtocols,
  type RadarMapLike,
} from '../../../src/client/map-frames';
import { createRadarClient } from '../../../src/client/radar-client';
import { pngPyramidArchive, tileBytes } from '../../fixtures/archives';

interface Layer {
  id: string;
  source: string;
  paint: Record<string, unknown>;
  beforeId?: string;
}

function memoryMap() {
  const sources = new Map<string, { url: string }>();
  const layers = new Map<string, Layer>();
  const map: RadarMapLike = {
    addSource: (id, source) => {
      if (sources.has(id)) throw new Error(`duplicate source ${id}`);
      sources.set(id, source);
    },
    removeSource: (id) => {
      if ([...layers.values()].some((l) => l.source === id)) throw new Error(`source ${id} in use`);
      sources.delete(id);
    },
    getSource: (id) => sources.get(id),
    addLayer: (layer, beforeId) => {
      layers.set(layer.id, { ...layer, paint: { ...layer.paint }, beforeId });
    },
    removeLayer: (id) => layers.delete(id),
    getLayer: (id) => layers.get(id),
    setPaintProperty: (id, name, value) => {
      layers.get(id)!.paint[name] = value;
    },
    isSourceLoaded: (id) => sources.has(id),
  };
  const visible = () =>
    [...layers.values()].filter((l) => l.paint['raster-opacity'] !== 0).map((l) => l.source);
  return { map, sources, layers, visible };
}

function protocols() {
  const registered = new Map<string, unknown>();
  const maplibre: MapLibreProtocols = {
    addProtocol: (name, handler) => registered.set(name, handler),
    removeProtocol: (name) => registered.delete(name),
  };
  return { maplibre, registered };
}

const client = createRadarClient({
  baseUrl: 'http://radar.test',
  credentials: { apiKey: 'k', appId: 'a' },
});
const T = ['202611221354', '202611221356', '202611221358', '202611221400'] as const;

it('adds one raster source and layer per frame and shows exactly one', () => {
  const { map, sources, layers, visible } = memoryMap();
  const { maplibre, registered } = protocols();
  const frames = createRadarFrames({ map, client, maplibre, beforeId: 'borders', opacity: 0.8 });
  expect(registered.has('pmtiles')).toBe(true);
  frames.preload([T[0], T[1]]);
  expect(visible()).toEqual([]);
  frames.show(T[1]);
  expect(visible()).toEqual([`radar-${T[1]}`]);
  frames.show(T[0]);
  expect(visible()).toEqual([`radar-${T[0]}`]);
  expect(frames.current()).toBe(T[0]);
  expect(sources.get(`radar-${T[0]}`)).toEqual({
    type: 'raster',
    url: `pmtiles://${client.archiveUrl(T[0])}`,
    tileSize: 256,
  });
  const layer = layers.get(frames.layerId(T[0]))!;
  expect(layer).toMatchObject({ source: `radar-${T[0]}`, beforeId: 'borders' });
  expect(layer.paint).toEqual({
    'raster-opacity': 0.8,
    'raster-fade-duration': 0,
    'raster-resampling': 'linear',
  });
  expect(frames.isLoaded(T[0])).toBe(true);
  expect(frames.isLoaded(T[3])).toBe(false);
});

it('retain() removes frames that left the status list and releases their readers', () => {
  const { map, sources, layers } = memoryMap();
  const protocol = new Protocol();
  const frames = createRadarFrames({ map, client, protocol });
  frames.preload(T);
  frames.show(T[3]);
  expect(protocol.tiles.size).toBe(4);
  frames.retain([T[2], T[3]]);
  expect(frames.frames()).toEqual([T[2], T[3]]);
  expect([...sources.keys()]).toEqual([`radar-${T[2]}`, `radar-${T[3]}`]);
  expect(layers.size).toBe(2);
  expect(protocol.tiles.size).toBe(2);
});

it('keeps at most maxFrames on the map, dropping the least recently used but never the shown one', () => {
  const { map } = memoryMap();
  const protocol = new Protocol();
  const frames = createRadarFrames({ map, client, protocol, maxFrames: 2 });
  frames.show(T[0]);
  frames.preload([T[1]]);
  frames.preload([T[2]]); // evicts T[1]: T[0] is shown
  expect(frames.frames().sort()).toEqual([T[0], T[2]]);
  frames.show(T[3]); // evicts T[2]: T[0] is still the shown frame while T[3] is added
  expect(frames.frames()).toEqual([T[0], T[3]]);
  expect(protocol.tiles.size).toBe(2);
});

it('remove() clears the map and unregisters the protocol it registered', () => {
  const { map, sources, layers } = memoryMap();
  const { maplibre, registered } = protocols();
  const frames = createRadarFrames({ map, client, maplibre });
  frames.preload(T);
  frames.remove();
  expect(sources.size).toBe(0);
  expect(layers.size).toBe(0);
  expect(registered.size).toBe(0);
  expect(frames.current()).toBeUndefined();
});

it('needs either the maplibre module or an already registered protocol', () => {
  expect(() => createRadarFrames({ map: memoryMap().map, client })).toThrow(TypeError);
});

it('setRecolour() reloads the shown frame, takes the others off the map and keeps every reader', () => {
  const { map, sources, visible } = memoryMap();
  const { maplibre, registered } = protocols();
  const frames = createRadarFrames({ map, client, maplibre });
  frames.preload([T[0], T[1], T[2]]);
  frames.show(T[1]);
  const before = sources.get(`radar-${T[1]}`);
  const swap = (png: Uint8Array) => png.map((b) => b ^ 1);
  frames.setRecolour(swap);
  expect(frames.frames()).toEqual([T[1]]);
  expect(visible()).toEqual([`radar-${T[1]}`]);
  expect(sources.get(`radar-${T[1]}`)).not.toBe(before); // a new source: its tiles load again
  frames.setRecolour(swap); // the same rewrite again: nothing to reload
  frames.show(T[0]);
  expect(frames.frames()).toEqual([T[1], T[0]]);
  expect(registered.has('pmtiles')).toBe(true);
  frames.remove();
  // With a protocol it did not register, the helper cannot recolour its tiles.
  const shared = createRadarFrames({ map: memoryMap().map, client, protocol: new Protocol() });
  expect(() => shared.setRecolour(swap)).toThrow(TypeError);
});

it('the recolouring handler rewrites tile bodies only: not TileJSON, not missing tiles', async () => {
  const answers: unknown[] = [new Uint8Array([1, 2, 3]), new Uint8Array(0), { tilejson: '3.0.0' }];
  const inner: ProtocolHandler = async () => ({ data: answers.shift() });
  let rewrite: ((png: Uint8Array) => Uint8Array) | undefined = (png) => png.map((b) => b * 10);
  const handler = recolouringHandler(inner, () => rewrite);
  const request = { url: 'pmtiles://x/1/2/3' };
  expect((await handler(request, new AbortController())).data).toEqual(
    new Uint8Array([10, 20, 30]),
  );
  expect((await handler(request, new AbortController())).data).toEqual(new Uint8Array(0));
  expect((await handler(request, new AbortController())).data).toEqual({ tilejson: '3.0.0' });
  rewrite = undefined;
  answers.push(new Uint8Array([4]));
  expect((await handler(request, new AbortController())).data).toEqual(new Uint8Array([4]));
});

it('tile(): tiles the map was handed come from memory, recoloured; others through the reader', async () => {
  const archive = pngPyramidArchive('forecast-202611221400-030', 2, 300, 'forecast');
  const ranges: string[] = [];
  const served = createRadarClient({
    baseUrl: 'http://radar.test',
    credentials: { apiKey: 'k', appId: 'a' },
    fetch: async (input, init) => {
      const range = new Headers(init?.headers).get('Range')!;
      ranges.push(`${String(input)} ${range}`);
      const [, from, to] = /bytes=(\d+)-(\d+)/.exec(range)!;
      const body = archive.subarray(Number(from), Math.min(Number(to) + 1, archive.length));
      return new Response(new Uint8Array(body), { status: 206, headers: { ETag: '"a"' } });
    },
  });
  const { map } = memoryMap();
  const { maplibre, registered } = protocols();
  const frames = createRadarFrames({ map, client: served, maplibre });
  const key = 'forecast-202611221400-030';
  expect(await frames.tile(key, 1, 0, 0)).toBeUndefined(); // not on the map
  frames.show(key);
  frames.setRecolour((png) => png.map((b) => b ^ 0xff));
  frames.show(key);
  const handler = registered.get('pmtiles') as ProtocolHandler;
  const url = `pmtiles://${served.archiveUrl(key)}/1/0/0.png`;
  expect(url).toContain('/forecasts/202611221400/30.pmtiles/1/0/0.png');
  const shown = (await handler({ url, type: 'image' }, new AbortController())).data as Uint8Array;
  const requests = ranges.length;
  expect(await frames.tile(key, 1, 0, 0)).toBe(shown); // from memory: no request
  expect(ranges.length).toBe(requests);
  const other = await frames.tile(key, 2, 1, 1); // never shown: read through the reader
  expect(other).toEqual(Buffer.from(tileBytes(2, 1, 1, 300)).map((b) => b ^ 0xff));
  expect(ranges.length).toBeGreaterThanOrEqual(requests);
  frames.remove();
});
