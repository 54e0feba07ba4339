/**
 * The fixed 127-byte PMTiles v3 header: the one place that knows its byte layout, shared by the
 * writer (encode) and the ingest gate (decode), so both agree on every field.
 */

/** Size of the v3 header in bytes; the root directory starts at or after it. */
export const HEADER_BYTES = 127;

/** Bytes a latency-optimised client fetches first; header + root directory must fit in it. */
export const ROOT_WINDOW_BYTES = 16384;

/** The 7 ASCII bytes every archive starts with. */
export const PMTILES_MAGIC = 'PMTiles';

/** `InternalCompression` / `TileCompression` enum values of the PMTiles spec. */
export const Compression = { Unknown: 0, None: 1, Gzip: 2, Brotli: 3, Zstd: 4 } as const;

/** Tile type enum values of the PMTiles spec. */
export const TileType = { Unknown: 0, Mvt: 1, Png: 2, Jpeg: 3, Webp: 4, Avif: 5 } as const;

/**
 * Every header field, decoded. Offsets, lengths and counts are plain numbers: `decodeHeader`
 * refuses values of 2^53 or more, so they are always exact. Longitudes and latitudes are in
 * degrees (stored as int32 degrees x 10^7). Names follow the `pmtiles` JS reader's `Header`.
 */
export interface PmtilesHeader {
  specVersion: number;
  rootDirectoryOffset: number;
  rootDirectoryLength: number;
  jsonMetadataOffset: number;
  jsonMetadataLength: number;
  leafDirectoryOffset: number;
  leafDirectoryLength: number;
  tileDataOffset: number;
  tileDataLength: number;
  /** Tiles addressed, i.e. the sum of run lengths; 0 when unknown. */
  numAddressedTiles: number;
  /** Directory entries with run length > 0; 0 when unknown. */
  numTileEntries: number;
  /** Distinct tile blobs in the data section; 0 when unknown. */
  numTileContents: number;
  /** True when tile data is ordered by tile id. */
  clustered: boolean;
  /** `Compression` value of directories and metadata. */
  internalCompression: number;
  /** `Compression` value of tile payloads. */
  tileCompression: number;
  /** `TileType` value. */
  tileType: number;
  minZoom: number;
  maxZoom: number;
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
  centerZoom: number;
  centerLon: number;
  centerLat: number;
}

const E7 = 10_000_000;
const TWO_32 = 2 ** 32;

/**
 * Parses the first 127 bytes of `bytes` as a header. Throws when the buffer is shorter than a
 * header, the magic is not `PMTiles`, or a 64-bit field is 2^53 or more (not exactly
 * representable). The version byte is returned as found, not checked: the caller decides which
 * versions it accepts.
 */
export function decodeHeader(bytes: Uint8Array): PmtilesHeader {
  if (bytes.length < HEADER_BYTES) {
    throw new RangeError(`PMTiles header needs ${HEADER_BYTES} bytes, got ${bytes.length}`);
  }
  if (!hasMagic(bytes)) throw new Error('not a PMTiles archive (bad magic)');
  const v = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const u64 = (at: number): number => {
    const value = v.getUint32(at + 4, true) * TWO_32 + v.getUint32(at, true);
    if (!Number.isSafeInteger(value)) {
      throw new RangeError(`PMTiles header field at byte ${at} exceeds 2^53`);
    }
    return value;
  };
  const e7 = (at: number): number => v.getInt32(at, true) / E7;
  return {
    specVersion: v.getUint8(7),
    rootDirectoryOffset: u64(8),
    rootDirectoryLength: u64(16),
    jsonMetadataOffset: u64(24),
    jsonMetadataLength: u64(32),
    leafDirectoryOffset: u64(40),
    leafDirectoryLength: u64(48),
    tileDataOffset: u64(56),
    tileDataLength: u64(64),
    numAddressedTiles: u64(72),
    numTileEntries: u64(80),
    numTileContents: u64(88),
    clustered: v.getUint8(96) === 1,
    internalCompression: v.getUint8(97),
    tileCompression: v.getUint8(98),
    tileType: v.getUint8(99),
    minZoom: v.getUint8(100),
    maxZoom: v.getUint8(101),
    minLon: e7(102),
    minLat: e7(106),
    maxLon: e7(110),
    maxLat: e7(114),
    centerZoom: v.getUint8(118),
    centerLon: e7(119),
    centerLat: e7(123),
  };
}

/**
 * Serialises `h` into exactly 127 bytes (magic included). Degrees are rounded to 10^-7.
 * Throws `RangeError` when a field does not fit its width (negative or unsafe 64-bit values,
 * bytes outside 0..255, coordinates outside int32 at 10^7), rather than writing a header that
 * silently says something else.
 */
export function encodeHeader(h: PmtilesHeader): Buffer {
  const out = Buffer.alloc(HEADER_BYTES);
  out.write(PMTILES_MAGIC, 0, 'latin1');
  const u8 = (at: number, value: number, name: string): void => {
    if (!Number.isInteger(value) || value < 0 || value > 255) {
      throw new RangeError(`header ${name} must be an integer 0..255, got ${value}`);
    }
    out.writeUInt8(value, at);
  };
  const u64 = (at: number, value: number, name: string): void => {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`header ${name} must be a safe non-negative integer, got ${value}`);
    }
    out.writeUInt32LE(value % TWO_32, at);
    out.writeUInt32LE(Math.floor(value / TWO_32), at + 4);
  };
  const e7 = (at: number, degrees: number, name: string): void => {
    const value = Math.round(degrees * E7);
    if (!Number.isFinite(value) || value < -(2 ** 31) || value >= 2 ** 31) {
      throw new RangeError(`header ${name} out of range: ${degrees}`);
    }
    out.writeInt32LE(value, at);
  };
  u8(7, h.specVersion, 'specVersion');
  u64(8, h.rootDirectoryOffset, 'rootDirectoryOffset');
  u64(16, h.rootDirectoryLength, 'rootDirectoryLength');
  u64(24, h.jsonMetadataOffset, 'jsonMetadataOffset');
  u64(32, h.jsonMetadataLength, 'jsonMetadataLength');
  u64(40, h.leafDirectoryOffset, 'leafDirectoryOffset');
  u64(48, h.leafDirectoryLength, 'leafDirectoryLength');
  u64(56, h.tileDataOffset, 'tileDataOffset');
  u64(64, h.tileDataLength, 'tileDataLength');
  u64(72, h.numAddressedTiles, 'numAddressedTiles');
  u64(80, h.numTileEntries, 'numTileEntries');
  u64(88, h.numTileContents, 'numTileContents');
  out.writeUInt8(h.clustered ? 1 : 0, 96);
  u8(97, h.internalCompression, 'internalCompression');
  u8(98, h.tileCompression, 'tileCompression');
  u8(99, h.tileType, 'tileType');
  u8(100, h.minZoom, 'minZoom');
  u8(101, h.maxZoom, 'maxZoom');
  e7(102, h.minLon, 'minLon');
  e7(106, h.minLat, 'minLat');
  e7(110, h.maxLon, 'maxLon');
  e7(114, h.maxLat, 'maxLat');
  u8(118, h.centerZoom, 'centerZoom');
  e7(119, h.centerLon, 'centerLon');
  e7(123, h.centerLat, 'centerLat');
  return out;
}

/** True when `bytes` starts with the 7-byte `PMTiles` magic. */
export function hasMagic(bytes: Uint8Array): boolean {
  if (bytes.length < PMTILES_MAGIC.length) return false;
  for (let i = 0; i < PMTILES_MAGIC.length; i++) {
    if (bytes[i] !== PMTILES_MAGIC.charCodeAt(i)) return false;
  }
  return true;
}
