/**
 * In-memory PMTiles v3 writer. No maintained JS library writes PMTiles, and the simulator and
 * tests need archives that any spec reader (MapLibre + `pmtiles`, go-pmtiles) accepts and that
 * pass our own ingest gate.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { buildDirectories, type DirectoryEntry } from './directory';
import {
  Compression,
  encodeHeader,
  HEADER_BYTES,
  type PmtilesHeader,
  ROOT_WINDOW_BYTES,
  TileType,
} from './header';
import { MAX_TILE_ZOOM, zxyToTileId } from './tile-id';
import { isLatitude, isLongitude } from './validate';

/** One tile to store: its address and its bytes, stored exactly as given. */
export interface TileInput {
  z: number;
  x: number;
  y: number;
  data: Uint8Array;
}

/** Tile formats the header can declare. */
export type TileTypeName = 'png' | 'mvt' | 'jpeg' | 'webp' | 'avif';

/** Compression the caller already applied to every tile payload (the writer never re-encodes). */
export type TileCompressionName = 'none' | 'gzip' | 'brotli' | 'zstd';

/** Archive-wide header fields and metadata. */
export interface WriteOptions {
  tileType: TileTypeName;
  /** Zoom range readers will query; every tile must lie inside it. */
  minZoom: number;
  maxZoom: number;
  /** West, south, east, north in degrees. */
  bounds: [number, number, number, number];
  /** Longitude, latitude in degrees, and zoom. */
  center: [number, number, number];
  /** JSON metadata, stored gzip-compressed. */
  metadata: Record<string, unknown>;
  /** Declared tile compression; default `'none'` (right for png/jpeg/webp/avif). */
  tileCompression?: TileCompressionName;
}

const TILE_TYPES: Record<TileTypeName, number> = {
  mvt: TileType.Mvt,
  png: TileType.Png,
  jpeg: TileType.Jpeg,
  webp: TileType.Webp,
  avif: TileType.Avif,
};

const TILE_COMPRESSIONS: Record<TileCompressionName, number> = {
  none: Compression.None,
  gzip: Compression.Gzip,
  brotli: Compression.Brotli,
  zstd: Compression.Zstd,
};

/** A distinct tile payload and where it sits in the tile data section. */
interface Blob {
  data: Uint8Array;
  offset: number;
}

/**
 * Builds a complete, clustered PMTiles v3 archive in memory, laid out as header | root
 * directory | metadata | leaf directories | tile data. Tile data is in tile-id order; identical
 * payloads are stored once, and consecutive tile ids with identical payloads share one entry
 * (run length), so the header counts are exact. Directories and metadata are gzipped; header +
 * root always fit in the first 16 KiB (leaf directories are added when needed).
 * Throws `RangeError` for no tiles, a duplicate or out-of-range tile, an empty payload (the PMTiles
 * spec forbids zero-length entries), or options a reader would misread (zooms, bounds, center).
 */
export function writePmtiles(tiles: readonly TileInput[], options: WriteOptions): Buffer {
  checkOptions(options);
  if (tiles.length === 0) throw new RangeError('a PMTiles archive needs at least one tile');

  const addressed = tiles.map((tile) => {
    if (tile.z < options.minZoom || tile.z > options.maxZoom) {
      throw new RangeError(`tile ${tile.z}/${tile.x}/${tile.y} outside zoom range`);
    }
    if (tile.data.length === 0) {
      throw new RangeError(`tile ${tile.z}/${tile.x}/${tile.y} has no data`);
    }
    return { id: zxyToTileId(tile.z, tile.x, tile.y), tile };
  });
  addressed.sort((a, b) => a.id - b.id);

  const blobs = new Map<string, Blob[]>();
  const chunks: Uint8Array[] = [];
  let dataLength = 0;
  const entries: DirectoryEntry[] = [];
  let last: DirectoryEntry | undefined;
  for (const { id, tile } of addressed) {
    if (last !== undefined && id < last.tileId + last.runLength) {
      throw new RangeError(`duplicate tile ${tile.z}/${tile.x}/${tile.y}`);
    }
    const key = createHash('sha256').update(tile.data).digest('base64');
    const candidates = blobs.get(key) ?? [];
    let blob = candidates.find((b) => Buffer.compare(b.data, tile.data) === 0);
    if (blob === undefined) {
      blob = { data: tile.data, offset: dataLength };
      candidates.push(blob);
      blobs.set(key, candidates);
      chunks.push(tile.data);
      dataLength += tile.data.length;
    }
    if (last !== undefined && id === last.tileId + last.runLength && last.offset === blob.offset) {
      last.runLength += 1;
    } else {
      last = { tileId: id, offset: blob.offset, length: tile.data.length, runLength: 1 };
      entries.push(last);
    }
  }

  const { root, leaves } = buildDirectories(entries);
  const metadata = gzipSync(Buffer.from(JSON.stringify(options.metadata), 'utf8'));
  const rootOffset = HEADER_BYTES;
  const metadataOffset = rootOffset + root.length;
  const leavesOffset = metadataOffset + metadata.length;
  const tileDataOffset = leavesOffset + leaves.length;
  if (rootOffset + root.length > ROOT_WINDOW_BYTES) {
    throw new Error('internal: root directory does not fit in the first 16 KiB');
  }

  const [west, south, east, north] = options.bounds;
  const [centerLon, centerLat, centerZoom] = options.center;
  const header: PmtilesHeader = {
    specVersion: 3,
    rootDirectoryOffset: rootOffset,
    rootDirectoryLength: root.length,
    jsonMetadataOffset: metadataOffset,
    jsonMetadataLength: metadata.length,
    leafDirectoryOffset: leavesOffset,
    leafDirectoryLength: leaves.length,
    tileDataOffset,
    tileDataLength: dataLength,
    numAddressedTiles: addressed.length,
    numTileEntries: entries.length,
    numTileContents: chunks.length,
    clustered: true,
    internalCompression: Compression.Gzip,
    tileCompression: TILE_COMPRESSIONS[options.tileCompression ?? 'none'],
    tileType: TILE_TYPES[options.tileType],
    minZoom: options.minZoom,
    maxZoom: options.maxZoom,
    minLon: west,
    minLat: south,
    maxLon: east,
    maxLat: north,
    centerZoom,
    centerLon,
    centerLat,
  };
  return Buffer.concat(
    [encodeHeader(header), root, metadata, leaves, ...chunks],
    tileDataOffset + dataLength,
  );
}

/** Rejects options that would produce an archive our own ingest gate or a reader refuses. */
function checkOptions(o: WriteOptions): void {
  const isZoom = (z: number): boolean => Number.isInteger(z) && z >= 0 && z <= MAX_TILE_ZOOM;
  if (!Object.hasOwn(TILE_TYPES, o.tileType))
    throw new RangeError(`unknown tile type ${o.tileType}`);
  if (!Object.hasOwn(TILE_COMPRESSIONS, o.tileCompression ?? 'none')) {
    throw new RangeError(`unknown tile compression ${o.tileCompression}`);
  }
  if (!isZoom(o.minZoom) || !isZoom(o.maxZoom) || o.minZoom > o.maxZoom) {
    throw new RangeError(`bad zoom range ${o.minZoom}..${o.maxZoom}`);
  }
  const [west, south, east, north] = o.bounds;
  if (!isLongitude(west) || !isLongitude(east) || !isLatitude(south) || !isLatitude(north)) {
    throw new RangeError(`bounds out of range: ${o.bounds.join(',')}`);
  }
  if (west > east || south > north) throw new RangeError(`bounds inverted: ${o.bounds.join(',')}`);
  const [lon, lat, zoom] = o.center;
  if (!isLongitude(lon) || !isLatitude(lat) || !Number.isInteger(zoom) || zoom < 0 || zoom > 255) {
    throw new RangeError(`center out of range: ${o.center.join(',')}`);
  }
}
