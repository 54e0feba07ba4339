/**
 * Builds the viewer page into one flat directory the viewer route serves: the esbuild bundle
 * of `web/` (MapLibre, pmtiles and the client library included, so the page needs no CDN),
 * MapLibre's worker, and the base map converted at build time from the TopoJSON of the
 * `us-atlas` and `world-atlas` packages to GeoJSON (no network tiles, fonts or sprites).
 *
 * Run as `npm run build:viewer` (writes `dist/viewer/public`), or call {@link buildViewer}.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import type { Feature, FeatureCollection, Geometry, Position } from 'geojson';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { Basemap } from '../src/viewer/basemap';
import { defaultViewerAssetsDir } from '../src/viewer/viewer-routes';

/** Root of this checkout, from `src/viewer` or `dist/viewer` alike. */
const ROOT = path.resolve(__dirname, '..');

export type { Basemap };

/** Rounds coordinates to 1e-3 degrees (about 100 m), a third of the size at no visible cost. */
function roundGeometry(geometry: Geometry): Geometry {
  const round = (p: Position): Position => [
    Math.round(p[0]! * 1000) / 1000,
    Math.round(p[1]! * 1000) / 1000,
  ];
  const walk = (value: unknown): unknown =>
    typeof (value as Position)[0] === 'number'
      ? round(value as Position)
      : (value as unknown[]).map(walk);
  if (geometry.type === 'GeometryCollection')
    return { ...geometry, geometries: geometry.geometries.map(roundGeometry) };
  return { ...geometry, coordinates: walk(geometry.coordinates) } as Geometry;
}

/** Lon/lat box of the world base map: North America and its seas, around the radar's CONUS. */
const REGION = { west: -180, south: 0, east: -20, north: 85 };

/**
 * Keeps the parts of a world geometry that touch {@link REGION}, so Eurasia's coastline is not
 * shipped to every browser. Parts wider than 180 degrees (wrapping the antimeridian) are dropped.
 */
function withinRegion(geometry: Geometry): Geometry {
  const touches = (ring: Position[]) => {
    const lons = ring.map((p) => p[0]!);
    const lats = ring.map((p) => p[1]!);
    const west = Math.min(...lons);
    const east = Math.max(...lons);
    if (east - west > 180) return false;
    return (
      east >= REGION.west &&
      west <= REGION.east &&
      Math.max(...lats) >= REGION.south &&
      Math.min(...lats) <= REGION.north
    );
  };
  if (geometry.type === 'MultiPolygon')
    return { ...geometry, coordinates: geometry.coordinates.filter((poly) => touches(poly[0]!)) };
  if (geometry.type === 'MultiLineString')
    return { ...geometry, coordinates: geometry.coordinates.filter(touches) };
  return geometry;
}

function collection(features: Array<Feature | Geometry>): FeatureCollection {
  return {
    type: 'FeatureCollection',
    features: features.map((f) => {
      const geometry = f.type === 'Feature' ? f.geometry : f;
      return { type: 'Feature', properties: {}, geometry: roundGeometry(geometry) };
    }),
  };
}

async function readTopology(file: string): Promise<Topology> {
  return JSON.parse(await fs.readFile(path.join(ROOT, 'node_modules', file), 'utf8')) as Topology;
}

/** Converts the packaged TopoJSON into the {@link Basemap}. */
export async function buildBasemap(): Promise<Basemap> {
  const us = await readTopology('us-atlas/states-10m.json');
  const land = await readTopology('world-atlas/land-50m.json');
  const countries = await readTopology('world-atlas/countries-50m.json');
  const states = us.objects.states as GeometryCollection;
  const nation = us.objects.nation as GeometryCollection;
  const countryObjects = countries.objects.countries as GeometryCollection;
  return {
    land: collection(
      feature(land, land.objects.land as GeometryCollection).features.map((f) =>
        withinRegion(f.geometry),
      ),
    ),
    countryBorders: collection([withinRegion(mesh(countries, countryObjects, (a, b) => a !== b))]),
    states: collection(feature(us, states).features),
    stateBorders: collection([mesh(us, states, (a, b) => a !== b)]),
    nation: collection([mesh(us, nation)]),
  };
}

/** Options of {@link buildViewer}. */
export interface BuildViewerOptions {
  /** Output directory (default `dist/viewer/public`); created, and emptied first. */
  readonly outDir?: string;
  /** Minify the bundle (default true). */
  readonly minify?: boolean;
}

/** Builds the page into `outDir`; returns the directory. */
export async function buildViewer(options: BuildViewerOptions = {}): Promise<string> {
  const outDir = options.outDir ?? defaultViewerAssetsDir();
  const web = path.join(ROOT, 'web');
  await fs.rm(outDir, { recursive: true, force: true });
  await fs.mkdir(outDir, { recursive: true });
  // The viewer and the Leaflet and OpenLayers example pages (docs/examples.md) in one pass; the
  // loader inlines the map libraries' CSS images.
  await build({
    entryPoints: {
      app: path.join(web, 'main.ts'),
      leaflet: path.join(web, 'examples', 'leaflet-main.ts'),
      openlayers: path.join(web, 'examples', 'openlayers-main.ts'),
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome111', 'firefox113', 'safari16.4'],
    minify: options.minify ?? true,
    sourcemap: 'linked',
    legalComments: 'linked',
    loader: { '.png': 'dataurl', '.svg': 'dataurl' },
    outdir: outDir,
    logLevel: 'warning',
  });
  for (const page of ['leaflet.html', 'openlayers.html'])
    await fs.copyFile(path.join(web, 'examples', page), path.join(outDir, page));
  await fs.copyFile(path.join(web, 'index.html'), path.join(outDir, 'index.html'));
  // MapLibre (v5+) runs its worker from a separate module file; the page points it here.
  await fs.copyFile(
    path.join(ROOT, 'node_modules', 'maplibre-gl', 'dist', 'maplibre-gl-worker.mjs'),
    path.join(outDir, 'maplibre-gl-worker.mjs'),
  );
  await fs.writeFile(path.join(outDir, 'basemap.json'), JSON.stringify(await buildBasemap()));
  return outDir;
}

if (require.main === module) {
  const started = Date.now();
  buildViewer({ outDir: process.argv[2] })
    .then((dir) => process.stdout.write(`viewer built in ${Date.now() - started} ms: ${dir}\n`))
    .catch((err: unknown) => {
      process.stderr.write(`viewer build failed: ${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    });
}
